#include <cmath>

#include "analysis/doctor/doctor_checks.hpp"
#include "analysis/doctor/src/doctor_format.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

using detail::fixed;

Check check_clock(const ClockMeasurement& clock, double threshold_ms) {
  Check c{"clock.offset", "clock offset between nodes (NTP-style over MPI)", CheckStatus::pass, "", "", {}};
  c.details["threshold"] = fixed(threshold_ms, 1) + " ms";
  if (!clock.measured || clock.offsets.empty()) {
    c.status = CheckStatus::skip;
    c.reason = clock.note.empty() ? "not measured" : clock.note;
    return c;
  }
  const ClockOffset* largest = nullptr;
  std::vector<std::string> over;
  std::vector<std::string> stepped;
  std::vector<std::string> unresolved;
  std::vector<std::string> listed;
  for (const auto& o : clock.offsets) {
    const std::string line = "offset " + fixed(o.offset_ms, 3, true) + " ms, rtt " + fixed(o.rtt_ms, 3) + " ms (rank " +
                             std::to_string(o.rank) + ", " + std::to_string(o.samples) + " samples)";
    c.details[o.host + " (rank " + std::to_string(o.rank) + ")"] = line;
    listed.push_back(o.host + " " + fixed(o.offset_ms, 3, true) + " ms");
    if (largest == nullptr || std::fabs(o.offset_ms) > std::fabs(largest->offset_ms)) largest = &o;
    if (o.moved_ms > threshold_ms) {
      stepped.push_back(o.host + " (rank " + std::to_string(o.rank) + ")'s clock stepped by at least " + fixed(o.moved_ms, 3) +
                        " ms during the measurement (offset " + fixed(o.first_offset_ms, 3, true) + " ms at the first exchange, " +
                        fixed(o.last_offset_ms, 3, true) + " ms at the last)");
    } else if (std::fabs(o.offset_ms) > threshold_ms) {
      over.push_back(o.host + " (rank " + std::to_string(o.rank) + ") is " + fixed(std::fabs(o.offset_ms), 3) + " ms " +
                     (o.offset_ms > 0 ? "ahead of" : "behind") + " rank 0's clock");
    } else if (o.rtt_ms / 2 > threshold_ms) {
      // The true offset lies within +-rtt/2 of the estimate; at this rtt the threshold cannot be told.
      unresolved.push_back(o.host + " (rtt " + fixed(o.rtt_ms, 3) + " ms)");
    }
  }
  const std::string scope =
      clock.same_node ? "one node, rank 0 against rank " + std::to_string(largest->rank) + " on the same clock (a check of the method): "
                      : "";
  if (!stepped.empty() || !over.empty()) {
    c.status = CheckStatus::fail;
    stepped.insert(stepped.end(), over.begin(), over.end());
    c.reason = scope + join(stepped, "; ") + " (threshold " + fixed(threshold_ms, 1) + " ms)";
    c.fix =
        "resynchronise the clocks of those nodes (chronyc makestep; check chronyd and the Amazon Time Sync "
        "Service 169.254.169.123 with chronyc tracking): logs of different nodes cannot be lined up otherwise";
    return c;
  }
  if (!unresolved.empty()) {
    c.status = CheckStatus::warn;
    c.reason = scope + "round trips too long to resolve " + fixed(threshold_ms, 1) + " ms: " + join(unresolved, ", ");
    c.fix = "rerun doctor when the network is quiet, or with more samples (--clock-samples)";
    return c;
  }
  c.reason = scope + "largest offset " + fixed(largest->offset_ms, 3, true) + " ms (" + largest->host + "), threshold " +
             fixed(threshold_ms, 1) + " ms; " + join(listed, ", ");
  return c;
}

}  // namespace meshbench::analysis
