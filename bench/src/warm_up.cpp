#include "bench/src/warm_up.hpp"

#include <algorithm>
#include <vector>

#include "bench/statistics.hpp"

namespace meshbench::bench {

namespace {

bool last_two_agree(const std::vector<double>& t) {
  if (t.size() < 2) return false;
  const double a = t[t.size() - 1], b = t[t.size() - 2];
  return std::max(a, b) <= kStableRatio * std::max(std::min(a, b), 1e-3);
}

}  // namespace

WarmUp warm_up(const TimingPolicy& p, const std::function<double()>& run_op, const std::function<double(double)>& slowest) {
  const int wanted = std::max(p.warmup, 2);
  const int most = wanted + kWarmUpExtraOps;
  const double bound_us = 0.2 * p.budget_s * 1e6;
  slowest(run_op());  // the first op: set-up on first use, see the header
  std::vector<double> later;
  double spent_us = 0;
  for (int ops = 2;; ++ops) {
    const double t = slowest(run_op());
    later.push_back(t);
    spent_us += t;
    if (ops >= most) break;
    // The next op would overrun the warm-up's share of the budget: slow ops get fewer warm-ups.
    if (spent_us + t > bound_us) break;
    if (ops >= wanted && (later.size() < 2 || last_two_agree(later))) break;
  }
  return {1 + static_cast<int>(later.size()), summarize(later).median};
}

int ops_per_batch(const TimingPolicy& p, double op_us) {
  const double per_batch_us = p.budget_s * 1e6 / std::max(p.batches, 1);
  return std::clamp(static_cast<int>(per_batch_us / std::max(op_us, 1e-3)), 1, std::max(p.batch_ops, 1));
}

}  // namespace meshbench::bench
