#pragma once
#include <mpi.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "bench/backend.hpp"
#include "bench/statistics.hpp"
#include "bench/timing.hpp"

namespace meshbench::bench {

class Watchdog;

// One group's result of one point, gathered on world rank 0.
struct GroupResult {
  int group = 0;
  double median_us = 0, p90_us = 0;
};

// One point measured by every rank of the world at once (or one group at a time).
struct PointResult {
  Summary summary;                  // of the per-iteration (or per-batch) slowest-rank times (mean with RankTime::avg)
  std::vector<double> samples_us;   // those times, in order
  std::vector<GroupResult> groups;  // world rank 0 only
  int iters = 0;
  int warmup = 0;           // warm-up ops run (warm_up.hpp: at least --warmup, more until stable)
  std::int64_t wrong = -1;  // summed over the world; -1 when not checked
  int slowest_group = -1;
  // The library's modelled time of one op (GroupComm::modelled_time_us), the largest over the
  // ranks; none when the backend has no model.
  std::optional<double> modelled_us;
};

struct PointContext {
  MPI_Comm world = MPI_COMM_NULL;
  MPI_Comm group_comm = MPI_COMM_NULL;  // this rank's group of the dimension
  int group_index = 0;                  // which group this rank is in
  int group_count = 1;
  GroupComm* group = nullptr;
  Watchdog* watchdog = nullptr;
  double op_limit_s = 60;     // watchdog limit for one op: a floor plus the size's share
  double limit_floor_s = 60;  // that floor, paid once per batch rather than per op
};

// Thrown on every rank by measure_concurrent and measure_isolated when any rank could not
// allocate the point's buffers (BufferAllocationError); what() is the lowest such rank's message.
class PointNotMeasured : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// All groups of the dimension run at once: the point the training run sees.
PointResult measure_concurrent(const PointContext& ctx, const OpLayout& layout, Timing timing, const TimingPolicy& policy, bool check,
                               bool corrupt);

// Each group alone in turn, the others waiting: what the point would cost without contention.
PointResult measure_isolated(const PointContext& ctx, const OpLayout& layout, Timing timing, const TimingPolicy& policy);

}  // namespace meshbench::bench
