#include "analysis/clock_offset.hpp"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <string>

#include "common/error.hpp"

namespace meshbench::analysis {

ClockOffset best_clock_offset(std::span<const ClockSample> samples, std::string host, int rank) {
  ClockOffset out;
  out.host = std::move(host);
  out.rank = rank;
  out.samples = static_cast<int>(samples.size());
  if (samples.empty()) return out;
  const auto best = std::min_element(samples.begin(), samples.end(),
                                     [](const ClockSample& a, const ClockSample& b) { return a.rtt_ms() < b.rtt_ms(); });
  out.offset_ms = best->offset_ms();
  out.rtt_ms = best->rtt_ms();
  return out;
}

std::int64_t injected_clock_offset_ns(double option_ms, bool is_rank0) {
  double ms = is_rank0 ? 0.0 : option_ms;
  if (const char* env = std::getenv("MESHBENCH_TEST_CLOCK_OFFSET_MS"); env != nullptr && *env != '\0') {
    try {
      ms += std::stod(env);
    } catch (const std::exception&) {
      throw InputError(std::string("MESHBENCH_TEST_CLOCK_OFFSET_MS='") + env + "' is not a number of milliseconds");
    }
  }
  return static_cast<std::int64_t>(ms * 1e6);
}

std::int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

}  // namespace meshbench::analysis
