#pragma once
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "bench/backend_error.hpp"
#include "bench/nccl_backend.hpp"
#include "bench/src/nccl_calls.hpp"

namespace meshbench::bench::nccl {

// Device memory that grows to the largest size a group asks for and is reused across sizes.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  // At least `elements` floats (one at least, so that empty buffers still have an address).
  void reserve(std::size_t elements, const OpContext& context);
  float* data() const { return data_; }

 private:
  float* data_ = nullptr;
  std::size_t capacity_ = 0;
};

// ncclAlltoAll's signature, resolved at run time (nccl_backend.cpp): no reference to the symbol
// is linked in, so an older libnccl.so.2 found first still loads.
using AlltoAllFn = ncclResult_t (*)(const void*, void*, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
// ncclGroupSimulateEnd's, resolved the same way (NCCL 2.22 and later).
using SimulateEndFn = ncclResult_t (*)(ncclSimInfo_t*);

// Waits until a communicator has no operation in progress (ncclCommGetAsyncError no longer says
// ncclInProgress): after a non-blocking init or call. Returns the final state; ncclInProgress
// past `limit_s`.
ncclResult_t await_communicator(ncclComm_t comm, double limit_s);

// One rank's NCCL communicator of one group, its stream, events and buffers. The communicator
// is destroyed with the object: the runner drops a dimension's groups before it makes the next.
class NcclGroup final : public GroupComm {
 public:
  // `alltoall`: ncclAlltoAll where the loaded library has it, else null (grouped send/recv);
  // `simulate`: ncclGroupSimulateEnd where it has that, else null (no modelled times).
  NcclGroup(ncclComm_t comm, std::vector<int> group_world_ranks, int world_rank, std::string device, const NcclOptions& options,
            AlltoAllFn alltoall, SimulateEndFn simulate);
  ~NcclGroup() override;
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  void prepare(const OpLayout& layout) override;
  double run_once() override;
  double run_batch(int ops) override;
  std::int64_t check(bool corrupt) override;
  std::optional<double> modelled_time_us() override;

 private:
  void enqueue();
  void issue(const NcclCall& call);
  // Polls the stream together with NCCL's asynchronous error until `ops` ops are done; aborts
  // the communicator and throws on an error or past the deadline.
  void wait(int ops, const char* what);
  void upload_pattern();
  void cuda(cudaError_t err, const char* call);
  void nccl(ncclResult_t res, const char* call);
  [[noreturn]] void abort_and_throw(const std::string& message);
  OpContext context() const;

  ncclComm_t comm_;
  std::vector<int> world_ranks_;
  int world_rank_;
  std::string device_;
  NcclOptions options_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  DeviceBuffer send_, recv_;
  std::vector<float> host_;  // staging for the check pattern and the copied-back result
  AlltoAllFn alltoall_;
  SimulateEndFn simulate_;
  OpLayout layout_;
  std::vector<NcclCall> calls_;  // one op's calls, planned once per point
  bool prepared_ = false;        // errors before the first prepare() belong to no op
};

}  // namespace meshbench::bench::nccl
