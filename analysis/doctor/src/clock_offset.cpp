#include "analysis/doctor/clock_offset.hpp"

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
  // A steady clock's true offset lies within rtt/2 of every sample's estimate, so all the
  // samples' intervals share it. When they do not, the clock moved while it was measured; a
  // negative round trip means it moved inside one exchange, and that sample says nothing.
  double highest_low = -1e300, lowest_high = 1e300;
  const ClockSample* best = nullptr;
  for (const auto& s : samples) {
    if (s.rtt_ms() < 0) {
      out.moved_ms = std::max(out.moved_ms, -s.rtt_ms());
      continue;
    }
    highest_low = std::max(highest_low, s.offset_ms() - s.rtt_ms() / 2);
    lowest_high = std::min(lowest_high, s.offset_ms() + s.rtt_ms() / 2);
    if (best == nullptr || s.rtt_ms() < best->rtt_ms()) best = &s;
  }
  if (best == nullptr) return out;
  out.moved_ms = std::max(out.moved_ms, highest_low - lowest_high);
  out.first_offset_ms = samples.front().offset_ms();
  out.last_offset_ms = samples.back().offset_ms();
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

std::int64_t injected_clock_step_ns() {
  const char* env = std::getenv("MESHBENCH_TEST_CLOCK_STEP_MS");
  if (env == nullptr || *env == '\0') return 0;
  try {
    return static_cast<std::int64_t>(std::stod(env) * 1e6);
  } catch (const std::exception&) {
    throw InputError(std::string("MESHBENCH_TEST_CLOCK_STEP_MS='") + env + "' is not a number of milliseconds");
  }
}

std::int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

}  // namespace meshbench::analysis
