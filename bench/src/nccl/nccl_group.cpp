// The NCCL backend's ops: float32 sums on this rank's GPU, on a stream of the group's own.
#include "bench/src/nccl/nccl_group.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>

#include "bench/src/nccl/cuda_calls.hpp"
#include "mapping/ops.hpp"

namespace meshbench::bench::nccl {

namespace {

using Clock = std::chrono::steady_clock;

// Spin this long before polling with short sleeps: small ops finish while spinning, so the
// host timing of a batch is not stretched by a wake-up; a long op does not notice 50 µs.
constexpr auto kSpinFor = std::chrono::milliseconds(10);
constexpr auto kPollSleep = std::chrono::microseconds(50);

}  // namespace

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
  check_cuda(cudaMalloc(&p, elements * sizeof(float)), context, "cudaMalloc");
  data_ = static_cast<float*>(p);
  capacity_ = elements;
}

NcclGroup::NcclGroup(ncclComm_t comm, std::vector<int> group_world_ranks, int world_rank, std::string device, const NcclOptions& options)
    : comm_(comm), world_ranks_(std::move(group_world_ranks)), world_rank_(world_rank), device_(std::move(device)), options_(options) {
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
  if (res == ncclSuccess || res == ncclInProgress) return;
  try {
    throw_nccl(res, comm_, context(), call);
  } catch (const BackendError& e) {
    abort_and_throw(e.what());
  }
}

void NcclGroup::prepare(const OpLayout& layout) {
  layout_ = layout;
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

void NcclGroup::enqueue_alltoall() {
  const std::size_t count = layout_.count;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
  nccl(ncclAlltoAll(send_.data(), recv_.data(), count, ncclFloat, comm_, stream_), "ncclAlltoAll");
#else
  // nccl-tests' fallback before NCCL 2.28: one send and one receive per peer, self included.
  nccl(ncclGroupStart(), "ncclGroupStart");
  for (int peer = 0; peer < layout_.n; ++peer) {
    const std::size_t at = static_cast<std::size_t>(peer) * count;
    nccl(ncclSend(send_.data() + at, count, ncclFloat, peer, comm_, stream_), "ncclSend");
    nccl(ncclRecv(recv_.data() + at, count, ncclFloat, peer, comm_, stream_), "ncclRecv");
  }
  nccl(ncclGroupEnd(), "ncclGroupEnd");
#endif
}

void NcclGroup::enqueue() {
  float* send = send_.data();
  float* recv = recv_.data();
  const std::size_t count = layout_.count;
  switch (layout_.op) {
    case Op::all_reduce: nccl(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm_, stream_), "ncclAllReduce"); break;
    case Op::all_gather: nccl(ncclAllGather(send, recv, count, ncclFloat, comm_, stream_), "ncclAllGather"); break;
    case Op::reduce_scatter: nccl(ncclReduceScatter(send, recv, count, ncclFloat, ncclSum, comm_, stream_), "ncclReduceScatter"); break;
    case Op::all_to_all: enqueue_alltoall(); break;
    case Op::all_to_allv:
      // NCCL has no all-to-allv: per-peer sends and receives in one group, as nccl-tests does.
      // A zero count is skipped on both sides alike (the matrix says so to sender and receiver).
      nccl(ncclGroupStart(), "ncclGroupStart");
      for (int peer = 0; peer < layout_.n; ++peer) {
        const auto p = static_cast<std::size_t>(peer);
        if (layout_.send_counts[p] > 0) {
          nccl(ncclSend(send + layout_.send_displs[p], layout_.send_counts[p], ncclFloat, peer, comm_, stream_), "ncclSend");
        }
        if (layout_.recv_counts[p] > 0) {
          nccl(ncclRecv(recv + layout_.recv_displs[p], layout_.recv_counts[p], ncclFloat, peer, comm_, stream_), "ncclRecv");
        }
      }
      nccl(ncclGroupEnd(), "ncclGroupEnd");
      break;
    case Op::send_recv:
      // Both directions at once: every stage exchanges with its previous and next stage.
      nccl(ncclGroupStart(), "ncclGroupStart");
      for (std::size_t p = 0; p < layout_.peers.size(); ++p) {
        nccl(ncclSend(send, count, ncclFloat, layout_.peers[p], comm_, stream_), "ncclSend");
        nccl(ncclRecv(recv + p * count, count, ncclFloat, layout_.peers[p], comm_, stream_), "ncclRecv");
      }
      nccl(ncclGroupEnd(), "ncclGroupEnd");
      break;
  }
}

void NcclGroup::wait(int ops, const char* what) {
  const double limit_s = nccl_wait_limit_s(options_, layout_.bytes, ops);
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_s));
  for (unsigned polls = 0;; ++polls) {
    const cudaError_t q = cudaStreamQuery(stream_);
    if (q == cudaSuccess) return;
    if (q != cudaErrorNotReady) cuda(q, "cudaStreamQuery");
    ncclResult_t async = ncclSuccess;
    nccl(ncclCommGetAsyncError(comm_, &async), "ncclCommGetAsyncError");
    if (async != ncclSuccess && async != ncclInProgress) nccl(async, "the op (asynchronous error)");
    // The clock is read every 64 polls: cheap enough to keep the spin tight.
    if ((polls & 63U) != 0) continue;
    const auto now = Clock::now();
    if (now > deadline) {
      const std::string error = std::string(what) + " did not complete within " + std::to_string(static_cast<long long>(limit_s)) +
                                " s; communicator aborted";
      abort_and_throw(op_error_message("NCCL", context(), error, ""));
    }
    if (now - start > kSpinFor) std::this_thread::sleep_for(kPollSleep);
  }
}

}  // namespace meshbench::bench::nccl
