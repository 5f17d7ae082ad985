#pragma once
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench/op_spec.hpp"

namespace meshbench::bench {

// One rank's place in one group of one dimension: runs that group's ops. The driver around it
// (synchronisation, iteration counts, reductions) is shared by all backends.
class GroupComm {
 public:
  virtual ~GroupComm() = default;
  // Allocates this op's buffers at this size and fills the send buffer with the check pattern.
  virtual void prepare(const OpLayout& layout) = 0;
  // Runs one op to completion and returns its time in µs on the backend's own clock (MPI: the
  // host's steady clock around the call; NCCL: CUDA events on the op's stream).
  virtual double run_once() = 0;
  // Runs `ops` ops back to back and returns the total µs on the host clock (nccl-tests style).
  virtual double run_batch(int ops) = 0;
  // Refills the buffers, runs one op and counts wrong elements of this rank's output.
  // `corrupt` (test-only fault injection) damages one output element before counting.
  virtual std::int64_t check(bool corrupt) = 0;
  // The library's own model of one op as prepared, in µs, where it has one: NCCL's
  // ncclGroupSimulateEnd (NCCL 2.22 or later), a second predictor beside meshbench's cost model
  // (docs/nccl.md). Nothing is launched.
  virtual std::optional<double> modelled_time_us() { return std::nullopt; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // This rank's group communicator, from the group's MPI sub-communicator. Called by every rank
  // at once for one dimension (all groups of a dimension are created together).
  virtual std::unique_ptr<GroupComm> make_group(MPI_Comm group) = 0;
  // Bytes one point's buffers may take on every rank (the tightest rank's free device memory,
  // less a reserve for the library's own buffers); 0 when the backend sets no such limit.
  virtual std::uint64_t device_memory_bytes() const { return 0; }
  // What the results file records about this backend (library and driver versions, devices).
  virtual std::vector<std::pair<std::string, std::string>> versions() const { return {}; }
};

std::unique_ptr<Backend> make_mpi_backend();

}  // namespace meshbench::bench
