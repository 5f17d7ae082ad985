#include "analysis/history/change_points.hpp"

#include <algorithm>
#include <cmath>
#include <random>

#include "analysis/compare/regression_stats.hpp"

namespace meshbench::analysis {

namespace {

// The best split of x, as Matteson and James define it: over the change τ and the end κ of the
// segment after it (so a level that comes and goes again still separates from the rest),
// Q(τ, κ) = a·b/(a+b) · (2·mean|X−Y| − mean|X−X'| − mean|Y−Y'|), X = x[0, τ), Y = x[τ, κ).
// O(n²) per call: with column prefix sums of the distance matrix every (τ, κ) costs O(1), so a
// permutation test costs what one pass over the matrix costs.
struct Split {
  std::size_t index = 0, end = 0;
  double statistic = -1;
};

Split best_split_of(std::span<const double> x, int min_segment) {
  const std::size_t n = x.size();
  const auto m = static_cast<std::size_t>(std::max(1, min_segment));
  Split best;
  if (n < 2 * m) return best;
  // prefix[k][i] = Σ_{i' < i} |x_i' − x_k|, for i ≤ k.
  std::vector<std::vector<double>> prefix(n);
  for (std::size_t k = 0; k < n; ++k) {
    prefix[k].assign(k + 1, 0.0);
    for (std::size_t i = 0; i < k; ++i) prefix[k][i + 1] = prefix[k][i] + std::abs(x[i] - x[k]);
  }
  double left = 0;  // Σ over pairs in x[0, τ)
  for (std::size_t t = 1; t + m <= n; ++t) {
    left += prefix[t - 1][t - 1];
    if (t < m) continue;
    double cross = 0, right = 0;
    for (std::size_t k = t; k < n; ++k) {  // Y = x[t, k]
      cross += prefix[k][t];
      right += prefix[k][k] - prefix[k][t];
      const std::size_t b = k + 1 - t;
      if (b < m) continue;
      const double fa = static_cast<double>(t), fb = static_cast<double>(b);
      const double mean_left = t > 1 ? left / (fa * (fa - 1) / 2) : 0.0;
      const double mean_right = b > 1 ? right / (fb * (fb - 1) / 2) : 0.0;
      const double q = fa * fb / (fa + fb) * (2 * cross / (fa * fb) - mean_left - mean_right);
      if (q > best.statistic) best = {t, k + 1, q};
    }
  }
  return best;
}

void segment(std::span<const double> all, std::size_t offset, std::size_t length, const ChangePointOptions& o, std::mt19937_64& rng,
             std::vector<ChangePoint>& out) {
  const auto x = all.subspan(offset, length);
  const Split best = best_split_of(x, o.min_segment);
  const std::size_t split = best.index;
  const double q = best.statistic;
  if (split == 0 || !(q > 0)) return;
  const auto at = [&](std::size_t i) { return x.begin() + static_cast<std::ptrdiff_t>(i); };
  const double before = median_of({at(0), at(split)});
  const double after = median_of({at(split), at(best.end)});
  // A split too small to matter is not tested: the runs' drift would make it significant often.
  if (std::abs(std::exp(after - before) - 1.0) < o.min_change) return;
  std::vector<double> shuffled(x.begin(), x.end());
  // Stop shuffling once the p-value cannot reach the threshold any more.
  const auto allowed = static_cast<int>(std::floor(o.p_value * (o.permutations + 1) + 1e-9)) - 1;
  int at_least = 0, done = 0;
  for (; done < o.permutations && at_least <= allowed; ++done) {
    for (std::size_t i = shuffled.size() - 1; i > 0; --i) std::swap(shuffled[i], shuffled[rng() % (i + 1)]);
    if (best_split_of(shuffled, o.min_segment).statistic >= q) ++at_least;
  }
  if (at_least > allowed) return;
  const double p = (1.0 + at_least) / (1.0 + o.permutations);
  segment(all, offset, split, o, rng, out);
  out.push_back({offset + split, p, before, after});
  segment(all, offset + split, length - split, o, rng, out);
}

}  // namespace

double smallest_reachable_p(std::size_t runs, int min_segment, int permutations) {
  const auto m = static_cast<std::size_t>(std::max(1, min_segment));
  if (runs < 2 * m) return 1.0;
  double arrangements = 1;  // C(runs, m), in floating point: it only has to be compared with 2 / p
  for (std::size_t i = 0; i < m; ++i) arrangements = arrangements * static_cast<double>(runs - i) / static_cast<double>(i + 1);
  return std::min(1.0, std::max(2.0 / arrangements, 1.0 / (permutations + 1.0)));
}

std::size_t runs_needed(int min_segment, double p_value, int permutations) {
  if (1.0 / (permutations + 1.0) > p_value) return 0;
  for (std::size_t n = 2 * static_cast<std::size_t>(std::max(1, min_segment)); n < 100000; ++n) {
    if (smallest_reachable_p(n, min_segment, permutations) <= p_value) return n;
  }
  return 0;
}

std::pair<std::size_t, double> best_split(std::span<const double> values, int min_segment) {
  const Split s = best_split_of(values, min_segment);
  return {s.index, s.statistic};
}

std::vector<ChangePoint> find_change_points(std::span<const double> log_values, const ChangePointOptions& options) {
  std::vector<ChangePoint> out;
  std::mt19937_64 rng(options.seed);
  segment(log_values, 0, log_values.size(), options, rng, out);
  return out;
}

}  // namespace meshbench::analysis
