#pragma once
#include <span>
#include <vector>

namespace meshbench::bench {

// The distribution of one point's iteration times (µs): nearest-rank percentiles.
struct Summary {
  double min = 0, median = 0, p90 = 0, p99 = 0, max = 0, mean = 0;
  int count = 0;
};

Summary summarize(std::span<const double> samples);

// Nearest-rank percentile of sorted samples, p in [0, 100].
double percentile_sorted(std::span<const double> sorted, double p);

// Half-width of the distribution-free 95% confidence interval of the median (order statistics
// at n/2 ± 0.98·sqrt(n)), relative to the median. Adaptive iteration counts stop once this is
// below the target precision.
double median_ci_relative_halfwidth(std::span<const double> samples);

}  // namespace meshbench::bench
