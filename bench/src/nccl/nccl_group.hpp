#pragma once
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "bench/backend_error.hpp"
#include "bench/nccl_backend.hpp"

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

// One rank's NCCL communicator of one group, its stream, events and buffers. The communicator
// is destroyed with the object: the runner drops a dimension's groups before it makes the next.
class NcclGroup final : public GroupComm {
 public:
  NcclGroup(ncclComm_t comm, std::vector<int> group_world_ranks, int world_rank, std::string device, const NcclOptions& options);
  ~NcclGroup() override;
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  void prepare(const OpLayout& layout) override;
  double run_once() override;
  double run_batch(int ops) override;
  std::int64_t check(bool corrupt) override;

 private:
  void enqueue();
  void enqueue_alltoall();
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
  OpLayout layout_;
  bool prepared_ = false;  // errors before the first prepare() belong to no op
};

}  // namespace meshbench::bench::nccl
