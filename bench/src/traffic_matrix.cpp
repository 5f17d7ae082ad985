#include "bench/traffic_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace meshbench::bench {

TrafficMatrix alltoallv_matrix(int n, std::uint64_t elements_per_rank, double skew, std::uint64_t seed) {
  const auto un = static_cast<std::size_t>(n);
  std::vector<int> order(un);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<double> weight(un);
  for (std::size_t k = 0; k < un; ++k) weight[static_cast<std::size_t>(order[k])] = 1.0 / std::pow(static_cast<double>(k + 1), skew);
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  const int hottest = order.front();
  TrafficMatrix counts(un, std::vector<std::uint64_t>(un, 0));
  for (std::size_t i = 0; i < un; ++i) {
    std::uint64_t assigned = 0;
    for (std::size_t j = 0; j < un; ++j) {
      counts[i][j] = static_cast<std::uint64_t>(std::floor(static_cast<double>(elements_per_rank) * weight[j] / total));
      assigned += counts[i][j];
    }
    counts[i][static_cast<std::size_t>(hottest)] += elements_per_rank - assigned;  // rounding remainder
  }
  return counts;
}

}  // namespace meshbench::bench
