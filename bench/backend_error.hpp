#pragma once
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::bench {

// A backend's library (NCCL, CUDA) failed, or an op outlived its deadline, during a run. The
// message is one line naming the op, size and group, so the run prints it as it is.
class BackendError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A point's buffers could not be allocated (device memory, or host memory for MPI). Nothing is
// broken: the group stays usable, and the run skips the point with a recorded failure.
class BufferAllocationError : public BackendError {
 public:
  using BackendError::BackendError;
};

// What failed, for the message: `op` is an op name ("all_reduce") or a step ("communicator
// init"); `bytes` 0 leaves the size out; `group_world_ranks` are the group's members as world
// ranks in communicator order.
struct OpContext {
  std::string op;
  std::uint64_t bytes = 0;
  std::vector<int> group_world_ranks;
  int world_rank = 0;
  std::string device;  // this rank's GPU, e.g. "GPU 0 (0000:19:00.0)"; empty when unknown
};

// "NCCL error in all_reduce of 16 MiB, group of world ranks 0,2,4,6 (this rank: 2, GPU 0
// (0000:19:00.0)): ncclRemoteError: remote process exited" — one line whatever the detail holds.
std::string op_error_message(std::string_view library, const OpContext& context, std::string_view error, std::string_view detail);

// Rank lists stay short in one line: "0,2,4,6", or the first and last few for big groups.
std::string describe_ranks(std::span<const int> ranks);

// Newlines and runs of blanks of a library's message folded into one line.
std::string one_line(std::string_view text);

}  // namespace meshbench::bench
