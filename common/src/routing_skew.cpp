#include "common/routing_skew.hpp"

#include <cmath>

#include "common/error.hpp"

namespace meshbench {

double routing_imbalance(int n, double skew) {
  if (n <= 1 || skew <= 0) return 1.0;
  double harmonic = 0;
  for (int k = 1; k <= n; ++k) harmonic += std::pow(static_cast<double>(k), -skew);
  return n / harmonic;
}

void check_routing_skew(double skew) {
  if (!(skew >= 0)) throw InputError("--a2av-skew must be 0 or more (the routing skew, a Zipf exponent; 0 = balanced)");
}

}  // namespace meshbench
