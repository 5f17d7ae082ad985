#include "bench/src/nccl/cuda_calls.hpp"

namespace meshbench::bench::nccl {

const char* result_name(ncclResult_t r) {
  switch (r) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    case ncclInProgress: return "ncclInProgress";
    default: return "ncclResult";
  }
}

void throw_cuda(cudaError_t err, const OpContext& context, const std::string& call) {
  const std::string error = std::string(cudaGetErrorName(err)) + " in " + call;
  throw BackendError(op_error_message("CUDA", context, error, cudaGetErrorString(err)));
}

void throw_nccl(ncclResult_t res, ncclComm_t comm, const OpContext& context, const std::string& call) {
  const std::string error = std::string(result_name(res)) + " (" + ncclGetErrorString(res) + ") in " + call;
  const char* last = ncclGetLastError(comm);
  throw BackendError(op_error_message("NCCL", context, error, last != nullptr ? last : ""));
}

}  // namespace meshbench::bench::nccl
