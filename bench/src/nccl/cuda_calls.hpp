#pragma once
// CUDA and NCCL calls that fail as BackendError with the op, size and group in one line.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <string>

#include "bench/backend_error.hpp"

namespace meshbench::bench::nccl {

// The name NCCL's enum gives a result ("ncclRemoteError"); ncclGetErrorString only describes it.
const char* result_name(ncclResult_t r);

[[noreturn]] void throw_cuda(cudaError_t err, const OpContext& context, const std::string& call);
// `comm` may be null (before a communicator exists); with one, ncclGetLastError adds NCCL's own detail.
[[noreturn]] void throw_nccl(ncclResult_t res, ncclComm_t comm, const OpContext& context, const std::string& call);

inline void check_cuda(cudaError_t err, const OpContext& context, const char* call) {
  if (err != cudaSuccess) throw_cuda(err, context, call);
}

// ncclInProgress is not success: the caller waits for it (await_communicator) before checking.
inline void check_nccl(ncclResult_t res, ncclComm_t comm, const OpContext& context, const char* call) {
  if (res != ncclSuccess) throw_nccl(res, comm, context, call);
}

}  // namespace meshbench::bench::nccl
