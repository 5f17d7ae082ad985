#include "bench/sensors/core_to_core_probe.hpp"

#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <limits>

#include "common/mpi/host_comm.hpp"

namespace meshbench::bench {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kRoundTrips = 128;  // per batch: 7 µs at 55 ns, 42 µs at 330 ns
constexpr int kBatches = 4;       // the fastest batch counts: one preemption spoils one batch only
constexpr std::uint32_t kStop = std::numeric_limits<std::uint32_t>::max();
constexpr double kGiveUpS = 0.5;  // a partner this late is descheduled: the reading says so

constexpr int kMaskWords = CPU_SETSIZE / 64;
using CoreMask = std::array<std::uint64_t, kMaskWords>;

CoreMask my_cores() {
  CoreMask mask{};
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return mask;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) mask[static_cast<std::size_t>(c / 64)] |= std::uint64_t{1} << (c % 64);
  }
  return mask;
}

bool disjoint(const CoreMask& a, const CoreMask& b) {
  bool any_a = false, any_b = false;
  for (int w = 0; w < kMaskWords; ++w) {
    const auto i = static_cast<std::size_t>(w);
    if ((a[i] & b[i]) != 0) return false;
    any_a = any_a || a[i] != 0;
    any_b = any_b || b[i] != 0;
  }
  return any_a && any_b;
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Whether MPI can map one window across every member of `comm` (the same answer on each). It
// maps one only across the ranks it knows share memory: not where the launcher started the
// ranks of one host as nodes of their own (the link-bound local cluster). Collective.
bool mpi_maps_shared_memory(MPI_Comm comm) {
  MPI_Comm shared = MPI_COMM_NULL;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shared);
  int shared_size = 0, size = 0;
  MPI_Comm_size(shared, &shared_size);
  MPI_Comm_size(comm, &size);
  MPI_Comm_free(&shared);
  int all = shared_size == size ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
  return all != 0;
}

}  // namespace

CoreToCoreProbe::CoreToCoreProbe(MPI_Comm world, const StatePolicy& policy)
    : world_(world), test_readings_(policy.test_readings), start_(Clock::now()) {
  if (!test_readings_.empty()) {
    usable_ = true;
    return;
  }
  node_ = mpi::split_by_host(world_);
  int local_size = 1;
  MPI_Comm_rank(node_, &local_rank_);
  MPI_Comm_size(node_, &local_size);
  std::vector<std::uint64_t> masks(static_cast<std::size_t>(local_size) * kMaskWords);
  const CoreMask mine = my_cores();
  MPI_Allgather(mine.data(), kMaskWords, MPI_UINT64_T, masks.data(), kMaskWords, MPI_UINT64_T, node_);
  if (local_size >= 2) {
    CoreMask first{}, second{};
    std::copy_n(masks.begin(), kMaskWords, first.begin());
    std::copy_n(masks.begin() + kMaskWords, kMaskWords, second.begin());
    pair_ = mpi_maps_shared_memory(node_) && disjoint(first, second);  // the collective first, on every rank
  }
  int any = pair_ ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, world_);
  usable_ = any != 0;
  if (!pair_) return;
  // Only the pair touches the line; the node's other ranks join the window with nothing.
  void* base = nullptr;
  MPI_Win_allocate_shared(local_rank_ == 0 ? 64 : 0, 1, MPI_INFO_NULL, node_, &base, &window_);
  MPI_Aint size = 0;
  int disp = 1;
  MPI_Win_shared_query(window_, 0, &size, &disp, &base);
  line_ = static_cast<std::uint32_t*>(base);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
  if (local_rank_ == 0) std::atomic_ref<std::uint32_t>(*line_).store(0);
  MPI_Win_sync(window_);
  MPI_Comm_split(node_, local_rank_ <= 1 ? 0 : MPI_UNDEFINED, local_rank_, &pair_comm_);
}

CoreToCoreProbe::~CoreToCoreProbe() {
  if (window_ != MPI_WIN_NULL) {
    MPI_Win_unlock_all(window_);
    MPI_Win_free(&window_);
  }
  if (pair_comm_ != MPI_COMM_NULL) MPI_Comm_free(&pair_comm_);
  if (node_ != MPI_COMM_NULL) MPI_Comm_free(&node_);
}

// Local rank 0 writes an odd number, rank 1 answers with the next even one; the fastest batch's
// mean round trip. The line starts at 0 and ends at kStop, which releases rank 1.
double CoreToCoreProbe::round_trip_ns() {
  std::atomic_ref<std::uint32_t> line(*line_);
  MPI_Barrier(pair_comm_);
  const auto start = Clock::now();
  if (local_rank_ == 1) {
    std::uint32_t expected = 1;
    for (std::uint64_t spins = 0;; ++spins) {
      const std::uint32_t v = line.load(std::memory_order_acquire);
      if (v == kStop) break;
      if (v == expected) {
        line.store(v + 1, std::memory_order_release);
        expected += 2;
      }
      if ((spins & 1023U) == 0 && seconds_since(start) > 2 * kGiveUpS) break;
    }
    MPI_Barrier(pair_comm_);
    return 0;
  }
  double best = std::numeric_limits<double>::infinity();
  std::uint32_t v = 1;
  for (int b = 0; b < kBatches; ++b) {
    const auto t0 = Clock::now();
    int done = 0;
    bool late = false;  // the clock is read only while waiting long: a read costs a third of a round trip
    for (; done < kRoundTrips && !late; ++done, v += 2) {
      line.store(v, std::memory_order_release);
      std::uint64_t spins = 0;
      while (line.load(std::memory_order_acquire) != v + 1) {
        if ((++spins & 1023U) == 0 && seconds_since(start) > kGiveUpS) {
          late = true;
          break;
        }
      }
    }
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / std::max(done, 1);
    best = std::min(best, ns);
    if (late) break;
  }
  line.store(kStop, std::memory_order_release);
  MPI_Barrier(pair_comm_);
  line.store(0, std::memory_order_release);  // rank 1 has left the loop: the next reading starts clean
  return best;
}

StateReading CoreToCoreProbe::read() {
  // [ratio, ns, seconds since the probe was made]: the maximum over the world, so every rank
  // takes the same decisions from it, its own clock's included.
  std::array<double, 3> v{0, 0, seconds_since(start_)};
  if (!test_readings_.empty()) {
    const double ns = test_readings_[std::min(next_test_reading_++, test_readings_.size() - 1)];
    v[0] = best_.observe(ns);
    v[1] = ns;
  } else if (pair_) {
    const double ns = round_trip_ns();
    if (local_rank_ == 0) {
      v[0] = best_.observe(ns);
      v[1] = ns;
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, v.data(), 3, MPI_DOUBLE, MPI_MAX, world_);
  return {v[0] > 0 ? v[0] : 1.0, v[1], v[2]};
}

}  // namespace meshbench::bench
