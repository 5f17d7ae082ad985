#include "analysis/doctor/src/clock_offset_mpi.hpp"

#include <array>
#include <set>

namespace meshbench::analysis::detail {

namespace {
constexpr int kTag = 7301;
constexpr int kWarmup = 8;  // first exchanges pay for connection setup and page faults
}  // namespace

ClockMeasurement measure_clock_offsets(MPI_Comm comm, const std::vector<std::string>& hosts, int samples, std::int64_t injected_ns) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  ClockMeasurement m;
  std::vector<int> targets;
  std::set<std::string> seen = {hosts.at(0)};
  for (int r = 1; r < size; ++r) {
    if (seen.insert(hosts.at(static_cast<std::size_t>(r))).second) targets.push_back(r);
  }
  if (targets.empty() && size > 1) {
    m.same_node = true;
    targets.push_back(1);
  }
  if (targets.empty()) {
    m.note = "one rank: no other clock to compare";
    return m;
  }
  std::int64_t step_ns = 0;
  try {
    step_ns = injected_clock_step_ns();
  } catch (const std::exception&) {
    // doctor_command validates it before MPI starts; never let one rank throw mid-collective
  }
  auto now = [&] { return realtime_ns() + injected_ns; };
  for (int target : targets) {
    if (rank == 0) {
      std::vector<ClockSample> kept;
      for (int i = 0; i < kWarmup + samples; ++i) {
        ClockSample s;
        std::array<std::int64_t, 2> reply{};
        s.t0_ns = now();
        MPI_Send(&i, 1, MPI_INT, target, kTag, comm);
        MPI_Recv(reply.data(), 2, MPI_INT64_T, target, kTag, comm, MPI_STATUS_IGNORE);
        s.t3_ns = now();
        s.t1_ns = reply[0];
        s.t2_ns = reply[1];
        if (i >= kWarmup) kept.push_back(s);
      }
      m.offsets.push_back(best_clock_offset(kept, hosts.at(static_cast<std::size_t>(target)), target));
    } else if (rank == target) {
      for (int i = 0; i < kWarmup + samples; ++i) {
        if (i == kWarmup + samples / 2) injected_ns += step_ns;
        int seq = 0;
        MPI_Recv(&seq, 1, MPI_INT, 0, kTag, comm, MPI_STATUS_IGNORE);
        std::array<std::int64_t, 2> reply{};
        reply[0] = now();
        reply[1] = now();
        MPI_Send(reply.data(), 2, MPI_INT64_T, 0, kTag, comm);
      }
    }
  }
  MPI_Barrier(comm);
  m.measured = true;
  m.note = m.same_node ? "one node: rank 0 against rank 1 (same clock; checks the method)"
                       : "rank 0 against the first rank of " + std::to_string(targets.size()) + " other node(s)";
  return m;
}

}  // namespace meshbench::analysis::detail
