#include "common/routing_skew.hpp"

#include <cmath>

namespace meshbench {

double routing_imbalance(int n, double skew) {
  if (n <= 1 || skew <= 0) return 1.0;
  double harmonic = 0;
  for (int k = 1; k <= n; ++k) harmonic += std::pow(static_cast<double>(k), -skew);
  return n / harmonic;
}

}  // namespace meshbench
