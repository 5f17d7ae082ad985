#include "bench/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace meshbench::bench {

double percentile_sorted(std::span<const double> sorted, double p) {
  if (sorted.empty()) return 0;
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * n));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

Summary summarize(std::span<const double> samples) {
  Summary s;
  if (samples.empty()) return s;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  s.count = static_cast<int>(v.size());
  s.min = v.front();
  s.max = v.back();
  // The median of an even count is the mean of the middle two, as in nccl-tests' -I summary.
  const std::size_t n = v.size();
  s.median = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.p90 = percentile_sorted(v, 90);
  s.p99 = percentile_sorted(v, 99);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
  return s;
}

double median_ci_relative_halfwidth(std::span<const double> samples) {
  const std::size_t n = samples.size();
  if (n < 6) return INFINITY;
  std::vector<double> v(samples.begin(), samples.end());
  std::sort(v.begin(), v.end());
  const double half = 0.98 * std::sqrt(static_cast<double>(n));
  const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(static_cast<double>(n) / 2.0 - half)));
  const auto hi = std::min(n - 1, static_cast<std::size_t>(std::ceil(static_cast<double>(n) / 2.0 + half)));
  const double median = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  if (median <= 0) return INFINITY;
  return (v[hi] - v[lo]) / (2.0 * median);
}

}  // namespace meshbench::bench
