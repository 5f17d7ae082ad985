#pragma once
// The median of a sample, for every module that summarises repeated measurements (compare's
// statistics, import, report, the training-log reader) and for tests and benches.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace meshbench {

// The median (the mean of the two middle values for an even count); 0 when empty. Reorders
// `values` instead of copying them (the bootstrap's resamples).
inline double median_in_place(std::vector<double>& values) {
  if (values.empty()) return 0;
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;
}

// The same on a copy.
inline double median_of(std::vector<double> values) { return median_in_place(values); }

}  // namespace meshbench
