#include "bench/sensors/machine_state.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <string>

#include "common/error.hpp"

namespace meshbench::bench {

StateReading worse_of(const StateReading& a, const StateReading& b) { return a.ratio >= b.ratio ? a : b; }

bool disturbed(const StateReading& r, const StatePolicy& policy) { return r.ratio > policy.factor; }

bool measure_again(const StateReading& r, int attempt, double budget_left_s, const StatePolicy& policy) {
  return policy.enabled && disturbed(r, policy) && attempt < policy.max_attempts && budget_left_s > 0;
}

std::vector<double> parse_test_readings(const char* text) {
  std::vector<double> out;
  if (text == nullptr) return out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || end == item.c_str() || *end != '\0' || errno != 0 || !std::isfinite(v) || v <= 0)
      throw InputError("MESHBENCH_TEST_STATE_NS: '" + item + "' is not a positive number of ns; give a list like 55,330,55");
    out.push_back(v);
  }
  return out;
}

}  // namespace meshbench::bench
