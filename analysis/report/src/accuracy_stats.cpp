// The statistics of the accuracy section: relative-error summaries, Spearman's rho, regret.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "analysis/report/prediction_accuracy.hpp"

namespace meshbench::analysis {

namespace {

double pearson(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  const double mx = std::accumulate(x.begin(), x.end(), 0.0) / n, my = std::accumulate(y.begin(), y.end(), 0.0) / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : std::nan("");
}

}  // namespace

ErrorSummary summarize_errors(std::vector<double> e) {
  ErrorSummary s;
  s.points = static_cast<int>(e.size());
  if (e.empty()) {
    s.median_rel_error = s.p90_rel_error = std::nan("");
    return s;
  }
  std::sort(e.begin(), e.end());
  const std::size_t n = e.size();
  s.median_rel_error = n % 2 == 1 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2.0;
  // Nearest rank: the smallest value with at least 90% of the values at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(0.9 * static_cast<double>(n) - 1e-9));
  s.p90_rel_error = e[std::max<std::size_t>(rank, 1) - 1];
  return s;
}

std::vector<double> ranks_of(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> rank(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) rank[order[k]] = (static_cast<double>(i + j)) / 2.0 + 1.0;
    i = j + 1;
  }
  return rank;
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return std::nan("");
  return pearson(ranks_of(x), ranks_of(y));
}

double regret(const std::vector<double>& predicted, const std::vector<double>& measured) {
  if (predicted.empty() || predicted.size() != measured.size()) return std::nan("");
  const double best_measured = *std::min_element(measured.begin(), measured.end());
  if (!(best_measured > 0)) return std::nan("");
  int tied = 0;
  return measured[predicted_best(predicted, measured, tied)] / best_measured - 1.0;
}

std::size_t predicted_best(const std::vector<double>& predicted, const std::vector<double>& measured, int& tied) {
  tied = 0;
  if (predicted.empty() || predicted.size() != measured.size()) return 0;
  const double lowest = *std::min_element(predicted.begin(), predicted.end());
  std::size_t best = predicted.size();
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    if (predicted[i] != lowest) continue;
    if (best == predicted.size()) {
      best = i;
      continue;
    }
    ++tied;
    if (measured[i] > measured[best]) best = i;
  }
  return best;
}

}  // namespace meshbench::analysis
