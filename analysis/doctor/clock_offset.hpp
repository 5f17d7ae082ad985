#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace meshbench::analysis {

// One NTP-style exchange between rank 0 and a peer. t0: rank 0 sends; t1: the peer receives;
// t2: the peer replies; t3: rank 0 receives. t0/t3 on rank 0's clock, t1/t2 on the peer's.
struct ClockSample {
  std::int64_t t0_ns = 0;
  std::int64_t t1_ns = 0;
  std::int64_t t2_ns = 0;
  std::int64_t t3_ns = 0;
  // The peer's clock minus rank 0's, assuming the two directions take equally long.
  double offset_ms() const { return static_cast<double>((t1_ns - t0_ns) + (t2_ns - t3_ns)) / 2e6; }
  // Round trip minus the peer's turnaround: the sample's error bound is rtt/2.
  double rtt_ms() const { return static_cast<double>((t3_ns - t0_ns) - (t2_ns - t1_ns)) / 1e6; }
};

// One node's offset against rank 0's node: from the sample with the smallest round trip, whose
// asymmetry (and so error) is smallest.
struct ClockOffset {
  std::string host;
  int rank = 0;  // the rank measured: the first rank of that node
  double offset_ms = 0.0;
  double rtt_ms = 0.0;
  int samples = 0;
  // How far the offset moved during the measurement, beyond what the samples' round trips allow
  // (0 for steady clocks): a clock stepped (ntpdate, chronyc makestep, a VM resumed) mid-way.
  double moved_ms = 0.0;
  double first_offset_ms = 0.0, last_offset_ms = 0.0;  // the first and last sample's estimates
};
ClockOffset best_clock_offset(std::span<const ClockSample> samples, std::string host, int rank);

// The outcome of the measurement over MPI, kept in the report whatever the check concludes.
struct ClockMeasurement {
  bool measured = false;
  std::string note;        // why nothing was measured, or what was ("one node: ...")
  bool same_node = false;  // one node only: rank 0 against another rank on the same clock
  std::vector<ClockOffset> offsets;
};

// Test-only clock skew (docs/doctor.md): --inject-clock-offset-ms shifts every rank but rank 0;
// MESHBENCH_TEST_CLOCK_OFFSET_MS shifts only the process that has it in its environment.
std::int64_t injected_clock_offset_ns(double option_ms, bool is_rank0);
// MESHBENCH_TEST_CLOCK_STEP_MS steps the clock of the process that has it by that much half-way
// through the exchanges it answers (0 without it).
std::int64_t injected_clock_step_ns();

// CLOCK_REALTIME in ns: the clock NTP disciplines and every log timestamp uses.
std::int64_t realtime_ns();

}  // namespace meshbench::analysis
