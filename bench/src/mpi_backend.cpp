// The MPI backend: host buffers and MPI's own collectives, one call per op.
#include <algorithm>
#include <chrono>
#include <climits>
#include <new>
#include <stdexcept>
#include <vector>

#include "bench/backend.hpp"
#include "bench/backend_error.hpp"
#include "bench/host_buffer.hpp"
#include "bench/mpi_wait.hpp"
#include "common/sizes.hpp"

namespace meshbench::bench {

namespace {

using Clock = std::chrono::steady_clock;

int as_int(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw std::runtime_error("a count above 2^31 elements does not fit MPI's int counts; lower the largest size (-e)");
  return static_cast<int>(n);
}

std::vector<int> as_ints(const std::vector<std::size_t>& v) {
  std::vector<int> r;
  r.reserve(v.size());
  for (auto x : v) r.push_back(as_int(x));
  return r;
}

class MpiGroup final : public GroupComm {
 public:
  explicit MpiGroup(MPI_Comm comm) : comm_(comm) {}

  void prepare(const OpLayout& layout) override {
    layout_ = layout;
    try {
      send_ = HostBuffer(layout.send);
      recv_ = HostBuffer(layout.recv);
    } catch (const std::bad_alloc&) {
      throw BufferAllocationError("host memory ran out for the " + std::string(mapping::to_string(layout.op)) + " buffers of " +
                                  format_bytes(layout.bytes) + " (" + format_bytes((layout.send + layout.recv) * kElementBytes) +
                                  " per rank)");
    }
    fill_send(layout_, std::span(send_.data(), layout.send));
    count_ = as_int(layout.count);
    // Empty but for the ops with per-peer counts.
    scounts_ = as_ints(layout.send_counts);
    sdispls_ = as_ints(layout.send_displs);
    rcounts_ = as_ints(layout.recv_counts);
    rdispls_ = as_ints(layout.recv_displs);
    requests_.resize(2 * layout.peers.size());
  }

  double run_once() override {
    const auto t0 = Clock::now();
    run();
    const auto t1 = Clock::now();
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  }

  double run_batch(int ops) override {
    const auto t0 = Clock::now();
    for (int i = 0; i < ops; ++i) run();
    const auto t1 = Clock::now();
    return std::chrono::duration<double, std::micro>(t1 - t0).count();
  }

  std::int64_t check(bool corrupt) override {
    fill_send(layout_, std::span(send_.data(), layout_.send));
    std::ranges::fill(recv_.span(), -1.0F);
    run();
    if (corrupt && layout_.recv > 0) recv_.data()[0] += 1.0F;
    return count_wrong(layout_, std::span<const float>(recv_.data(), layout_.recv));
  }

 private:
  void run() {
    if (mpi_wait_sleep_us() > 0) {
      run_nonblocking();
      return;
    }
    switch (layout_.op) {
      case Op::all_reduce: MPI_Allreduce(send_.data(), recv_.data(), count_, MPI_FLOAT, MPI_SUM, comm_); break;
      case Op::all_gather: MPI_Allgather(send_.data(), count_, MPI_FLOAT, recv_.data(), count_, MPI_FLOAT, comm_); break;
      case Op::reduce_scatter: MPI_Reduce_scatter_block(send_.data(), recv_.data(), count_, MPI_FLOAT, MPI_SUM, comm_); break;
      case Op::all_to_all: MPI_Alltoall(send_.data(), count_, MPI_FLOAT, recv_.data(), count_, MPI_FLOAT, comm_); break;
      case Op::all_to_allv:
        MPI_Alltoallv(send_.data(), scounts_.data(), sdispls_.data(), MPI_FLOAT, recv_.data(), rcounts_.data(), rdispls_.data(), MPI_FLOAT,
                      comm_);
        break;
      case Op::send_recv: exchange_with_peers(); break;
    }
  }

  // The same ops as MPI's non-blocking calls, completed by mpi_wait (bench/mpi_wait.hpp): a
  // rank whose data has not arrived sleeps instead of spinning.
  void run_nonblocking() {
    MPI_Request request = MPI_REQUEST_NULL;
    switch (layout_.op) {
      case Op::all_reduce: MPI_Iallreduce(send_.data(), recv_.data(), count_, MPI_FLOAT, MPI_SUM, comm_, &request); break;
      case Op::all_gather: MPI_Iallgather(send_.data(), count_, MPI_FLOAT, recv_.data(), count_, MPI_FLOAT, comm_, &request); break;
      case Op::reduce_scatter: MPI_Ireduce_scatter_block(send_.data(), recv_.data(), count_, MPI_FLOAT, MPI_SUM, comm_, &request); break;
      case Op::all_to_all: MPI_Ialltoall(send_.data(), count_, MPI_FLOAT, recv_.data(), count_, MPI_FLOAT, comm_, &request); break;
      case Op::all_to_allv:
        MPI_Ialltoallv(send_.data(), scounts_.data(), sdispls_.data(), MPI_FLOAT, recv_.data(), rcounts_.data(), rdispls_.data(), MPI_FLOAT,
                       comm_, &request);
        break;
      case Op::send_recv: exchange_with_peers(); return;
    }
    mpi_wait(request);
  }

  // Both directions at once: every stage exchanges with its previous and next stage.
  void exchange_with_peers() {
    const std::size_t peers = layout_.peers.size();
    for (std::size_t p = 0; p < peers; ++p) {
      MPI_Irecv(recv_.data() + p * layout_.count, count_, MPI_FLOAT, layout_.peers[p], 0, comm_, &requests_[p]);
    }
    for (std::size_t p = 0; p < peers; ++p) {
      MPI_Isend(send_.data(), count_, MPI_FLOAT, layout_.peers[p], 0, comm_, &requests_[peers + p]);
    }
    mpi_wait_all(static_cast<int>(requests_.size()), requests_.data());
  }

  MPI_Comm comm_;
  OpLayout layout_;
  HostBuffer send_, recv_;
  int count_ = 0;
  std::vector<int> scounts_, sdispls_, rcounts_, rdispls_;
  std::vector<MPI_Request> requests_;
};

class MpiBackend final : public Backend {
 public:
  std::string_view name() const override { return "mpi"; }
  std::unique_ptr<GroupComm> make_group(MPI_Comm group) override { return std::make_unique<MpiGroup>(group); }
};

}  // namespace

std::unique_ptr<Backend> make_mpi_backend() { return std::make_unique<MpiBackend>(); }

}  // namespace meshbench::bench
