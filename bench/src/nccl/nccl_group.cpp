// The NCCL backend's ops: float32 sums on this rank's GPU, on a stream of the group's own.
#include "bench/src/nccl/nccl_group.hpp"

#include <algorithm>
#include <chrono>
#include <exception>

#include "bench/src/device_wait.hpp"
#include "bench/src/nccl/cuda_calls.hpp"
#include "common/sizes.hpp"
#include "mapping/ops.hpp"

namespace meshbench::bench::nccl {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ncclResult_t await_communicator(ncclComm_t comm, double limit_s) {
  ncclResult_t last = ncclInProgress;
  const auto state = [&] {
    if (ncclCommGetAsyncError(comm, &last) != ncclSuccess) last = ncclInternalError;
    return last == ncclSuccess ? NcclState::success : last == ncclInProgress ? NcclState::in_progress : NcclState::error;
  };
  await_settled(state, std::chrono::duration<double>(limit_s));
  return last;
}

DeviceBuffer::~DeviceBuffer() {
  if (data_ != nullptr) cudaFree(data_);
}

void DeviceBuffer::reserve(std::size_t elements, const OpContext& context) {
  elements = std::max<std::size_t>(elements, 1);
  if (elements <= capacity_) return;
  if (data_ != nullptr) cudaFree(data_);
  data_ = nullptr;
  capacity_ = 0;
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, elements * sizeof(float));
  if (err == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // not sticky: the device stays usable for the next point
    throw BufferAllocationError(op_error_message(
        "CUDA", context, "cudaErrorMemoryAllocation in cudaMalloc of " + format_bytes(elements * sizeof(float)), cudaGetErrorString(err)));
  }
  check_cuda(err, context, "cudaMalloc");
  data_ = static_cast<float*>(p);
  capacity_ = elements;
}

NcclGroup::NcclGroup(ncclComm_t comm, std::vector<int> group_world_ranks, int world_rank, std::string device, const NcclOptions& options,
                     AlltoAllFn alltoall, SimulateEndFn simulate)
    : comm_(comm),
      world_ranks_(std::move(group_world_ranks)),
      world_rank_(world_rank),
      device_(std::move(device)),
      options_(options),
      alltoall_(alltoall),
      simulate_(simulate) {
  // A stream that does not synchronise with the legacy default stream: nothing else on the
  // device can slip into the timed region.
  cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  cuda(cudaEventCreate(&start_), "cudaEventCreate");
  cuda(cudaEventCreate(&stop_), "cudaEventCreate");
}

NcclGroup::~NcclGroup() {
  if (comm_ != nullptr) {
    // Every op was waited for, so finalize has nothing in flight. While an exception unwinds,
    // abort instead: it never waits for peers that may be gone.
    if (std::uncaught_exceptions() > 0 || ncclCommFinalize(comm_) != ncclSuccess) {
      ncclCommAbort(comm_);
    } else {
      ncclCommDestroy(comm_);
    }
  }
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

OpContext NcclGroup::context() const {
  OpContext c;
  c.op = prepared_ ? std::string(mapping::to_string(layout_.op)) : "group setup";
  c.bytes = layout_.bytes;
  c.group_world_ranks = world_ranks_;
  c.world_rank = world_rank_;
  c.device = device_;
  return c;
}

void NcclGroup::abort_and_throw(const std::string& message) {
  // The message is composed before the abort: ncclGetLastError needs the live communicator.
  if (comm_ != nullptr) {
    ncclCommAbort(comm_);
    comm_ = nullptr;
  }
  throw BackendError(message);
}

void NcclGroup::cuda(cudaError_t err, const char* call) {
  if (err == cudaSuccess) return;
  try {
    throw_cuda(err, context(), call);
  } catch (const BackendError& e) {
    abort_and_throw(e.what());
  }
}

void NcclGroup::nccl(ncclResult_t res, const char* call) {
  // The backend refuses NCCL_COMM_BLOCKING=0, but a call may still report work in progress:
  // it is not done until the communicator says so.
  if (res == ncclInProgress) res = await_communicator(comm_, nccl_wait_limit_s(options_, layout_.bytes, 1));
  if (res == ncclSuccess) return;
  try {
    throw_nccl(res, comm_, context(), call);
  } catch (const BackendError& e) {
    abort_and_throw(e.what());
  }
}

void NcclGroup::prepare(const OpLayout& layout) {
  layout_ = layout;
  calls_ = nccl_calls(layout_, alltoall_ != nullptr);
  prepared_ = true;
  send_.reserve(layout.send, context());
  recv_.reserve(layout.recv, context());
  cuda(cudaMemsetAsync(recv_.data(), 0, std::max<std::size_t>(layout.recv, 1) * sizeof(float), stream_), "cudaMemsetAsync");
  upload_pattern();
}

// The shared check pattern is made on the host (fill_send) and copied: every backend then
// sends exactly the same values, and no device kernel (nvcc) is needed.
void NcclGroup::upload_pattern() {
  host_.assign(layout_.send, 0.0F);
  fill_send(layout_, host_);
  if (!host_.empty()) {
    cuda(cudaMemcpyAsync(send_.data(), host_.data(), host_.size() * sizeof(float), cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync");
  }
  wait(1, "copying the check pattern to the GPU");
}

double NcclGroup::run_once() {
  cuda(cudaEventRecord(start_, stream_), "cudaEventRecord");
  enqueue();
  cuda(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  wait(1, "op");
  float ms = 0;
  cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return static_cast<double>(ms) * 1e3;
}

double NcclGroup::run_batch(int ops) {
  // nccl-tests' headline timing: host clock around ops enqueued back to back, then one wait.
  const auto t0 = Clock::now();
  for (int i = 0; i < ops; ++i) enqueue();
  wait(ops, "batch");
  const auto t1 = Clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count();
}

std::int64_t NcclGroup::check(bool corrupt) {
  upload_pattern();
  // 0xFF bytes are NaN floats: an element the op never wrote can never pass.
  cuda(cudaMemsetAsync(recv_.data(), 0xFF, std::max<std::size_t>(layout_.recv, 1) * sizeof(float), stream_), "cudaMemsetAsync");
  enqueue();
  wait(1, "op");
  host_.assign(layout_.recv, 0.0F);
  if (!host_.empty()) {
    cuda(cudaMemcpyAsync(host_.data(), recv_.data(), host_.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync");
  }
  wait(1, "copying the result from the GPU");
  if (corrupt && !host_.empty()) host_[0] += 1.0F;
  return count_wrong(layout_, host_);
}

// The op's calls inside a group that ncclGroupSimulateEnd closes: NCCL picks the algorithm and
// protocol, prices them with its tuning model and launches nothing. An estimate is a side
// result, so a failure drops the estimates of this group rather than the point.
std::optional<double> NcclGroup::modelled_time_us() {
  if (simulate_ == nullptr || !prepared_ || !simulated_op(calls_)) return std::nullopt;
  if (ncclGroupStart() != ncclSuccess) return std::nullopt;
  for (const auto& c : calls_) issue(c);
  ncclSimInfo_t info = NCCL_SIM_INFO_INITIALIZER;
  if (simulate_(&info) != ncclSuccess) {
    simulate_ = nullptr;
    return std::nullopt;
  }
  return usable_estimate_us(info.estimatedTime);
}

void NcclGroup::issue(const NcclCall& c) {
  const float* send = send_.data() + c.send_offset;
  float* recv = recv_.data() + c.recv_offset;
  switch (c.kind) {
    case NcclCall::Kind::all_reduce: nccl(ncclAllReduce(send, recv, c.count, ncclFloat, ncclSum, comm_, stream_), "ncclAllReduce"); break;
    case NcclCall::Kind::all_gather: nccl(ncclAllGather(send, recv, c.count, ncclFloat, comm_, stream_), "ncclAllGather"); break;
    case NcclCall::Kind::reduce_scatter:
      nccl(ncclReduceScatter(send, recv, c.count, ncclFloat, ncclSum, comm_, stream_), "ncclReduceScatter");
      break;
    case NcclCall::Kind::all_to_all: nccl(alltoall_(send, recv, c.count, ncclFloat, comm_, stream_), "ncclAlltoAll"); break;
    case NcclCall::Kind::group_start: nccl(ncclGroupStart(), "ncclGroupStart"); break;
    case NcclCall::Kind::group_end: nccl(ncclGroupEnd(), "ncclGroupEnd"); break;
    case NcclCall::Kind::send: nccl(ncclSend(send, c.count, ncclFloat, c.peer, comm_, stream_), "ncclSend"); break;
    case NcclCall::Kind::recv: nccl(ncclRecv(recv, c.count, ncclFloat, c.peer, comm_, stream_), "ncclRecv"); break;
  }
}

void NcclGroup::enqueue() {
  for (const auto& c : calls_) issue(c);
}

void NcclGroup::wait(int ops, const char* what) {
  const double limit_s = nccl_wait_limit_s(options_, layout_.bytes, ops);
  WaitCalls calls;
  calls.done = [this] {
    const cudaError_t q = cudaStreamQuery(stream_);
    if (q == cudaSuccess) return true;
    if (q != cudaErrorNotReady) cuda(q, "cudaStreamQuery");
    ncclResult_t async = ncclSuccess;
    nccl(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError");
    if (async != ncclSuccess && async != ncclInProgress) nccl(async, "the op (asynchronous error)");
    return false;
  };
  if (wait_until_done(calls, std::chrono::duration<double>(limit_s))) return;
  const std::string error =
      std::string(what) + " did not complete within " + std::to_string(static_cast<long long>(limit_s)) + " s; communicator aborted";
  abort_and_throw(op_error_message("NCCL", context(), error, ""));
}

}  // namespace meshbench::bench::nccl
