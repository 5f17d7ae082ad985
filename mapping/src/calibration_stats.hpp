// Fit quality from a fit's residuals (calibration_fit.cpp).
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "mapping/calibration.hpp"

namespace meshbench::mapping::detail {

// `relative`: |t̂ − t|/t per point (reordered); `log_sse`: Σ ln(t̂/t)² over the same points.
inline FitQuality fit_quality(std::vector<double>& relative, double log_sse) {
  FitQuality q;
  q.points = static_cast<int>(relative.size());
  if (relative.empty()) return q;
  std::sort(relative.begin(), relative.end());
  // Linear interpolation between order statistics.
  const auto quantile = [&relative](double p) {
    const double at = p * static_cast<double>(relative.size() - 1);
    const auto i = static_cast<std::size_t>(at);
    const double frac = at - static_cast<double>(i);
    return i + 1 < relative.size() ? relative[i] * (1 - frac) + relative[i + 1] * frac : relative[i];
  };
  q.median_rel_error = quantile(0.5);
  q.p90_rel_error = quantile(0.9);
  q.rms_log_residual = std::sqrt(log_sse / static_cast<double>(relative.size()));
  return q;
}

}  // namespace meshbench::mapping::detail
