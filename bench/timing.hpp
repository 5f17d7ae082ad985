#pragma once
#include <string_view>

namespace meshbench::bench {

// per_iteration: synchronise, time one op on each rank, keep the slowest rank per iteration.
// batched: nccl-tests style, N ops back to back divided by N.
enum class Timing { per_iteration, batched };
std::string_view to_string(Timing timing);

// How one iteration's (or batch's) times on the ranks become the point's sample: the slowest
// rank's (max: what a training step waits for, meshbench's default) or their mean (avg:
// nccl-tests' default, its -a 1). Compare runs made with the same choice. Stopping decisions
// and batch sizing use the slowest rank either way.
enum class RankTime { max, avg };

// How many iterations a point gets. Warm-up is never counted. Per-iteration timing adapts:
// it stops once the median is known to `precision` (relative half-width of its 95% interval),
// or the point's time budget is spent, within [min_iters, max_iters].
struct TimingPolicy {
  int warmup = 5;
  int min_iters = 20;
  int max_iters = 2000;
  double precision = 0.02;
  double budget_s = 1.0;
  int batch_ops = 20;  // ops per batch (batched timing)
  int batches = 5;     // batches per point: their spread feeds the statistics
  RankTime rank_time = RankTime::max;
};

}  // namespace meshbench::bench
