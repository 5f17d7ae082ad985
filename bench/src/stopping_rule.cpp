#include "bench/src/stopping_rule.hpp"

#include <algorithm>

#include "bench/statistics.hpp"

namespace meshbench::bench {

bool enough_iterations(const TimingPolicy& p, std::span<const double> samples, double elapsed_s) {
  const int n = static_cast<int>(samples.size());
  if (n >= p.max_iters) return true;
  return n >= p.min_iters && (elapsed_s >= p.budget_s || median_ci_relative_halfwidth(samples) <= p.precision);
}

int next_chunk(const TimingPolicy& p, int done, double elapsed_s) {
  const double per_iter = elapsed_s / done;
  const double budget_left = (p.budget_s - elapsed_s) / std::max(per_iter, 1e-9);
  return std::clamp(static_cast<int>(std::min<double>(done, budget_left)), 1, p.max_iters - done);
}

}  // namespace meshbench::bench
