#include <gtest/gtest.h>

#include <cstdlib>

#include "analysis/doctor/clock_offset.hpp"
#include "analysis/doctor/doctor_checks.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {
namespace {

constexpr std::int64_t kMs = 1000000;

// Peer clock ahead by `offset`, `out`/`back` one-way delays, `turn` the peer's turnaround.
ClockSample exchange(std::int64_t t0, std::int64_t offset, std::int64_t out, std::int64_t back, std::int64_t turn) {
  ClockSample s;
  s.t0_ns = t0;
  s.t1_ns = t0 + out + offset;
  s.t2_ns = s.t1_ns + turn;
  s.t3_ns = t0 + out + turn + back;
  return s;
}

TEST(DoctorClock, SymmetricExchangeGivesTheOffsetExactly) {
  const auto s = exchange(1000 * kMs, 5 * kMs, 1 * kMs, 1 * kMs, kMs / 10);
  EXPECT_DOUBLE_EQ(s.offset_ms(), 5.0);
  EXPECT_DOUBLE_EQ(s.rtt_ms(), 2.0);
  EXPECT_DOUBLE_EQ(exchange(0, -25 * kMs, kMs, kMs, 0).offset_ms(), -25.0);
}

TEST(DoctorClock, AsymmetryErrsByHalfItAndTheFastestSampleWins) {
  // 9 ms out, 1 ms back: the estimate is off by (9-1)/2 = 4 ms.
  const auto skewed = exchange(0, 5 * kMs, 9 * kMs, 1 * kMs, 0);
  EXPECT_DOUBLE_EQ(skewed.offset_ms(), 9.0);
  const std::vector<ClockSample> samples = {skewed, exchange(0, 5 * kMs, kMs / 2, kMs / 2, 0), exchange(0, 5 * kMs, 3 * kMs, kMs, 0)};
  const auto best = best_clock_offset(samples, "node-b", 8);
  EXPECT_DOUBLE_EQ(best.offset_ms, 5.0);
  EXPECT_DOUBLE_EQ(best.rtt_ms, 1.0);
  EXPECT_EQ(best.samples, 3);
  EXPECT_EQ(best.host, "node-b");
  EXPECT_EQ(best.rank, 8);
}

TEST(DoctorClock, SteadyClocksShowNoMovementWhateverTheDelays) {
  const std::vector<ClockSample> samples = {exchange(0, 5 * kMs, 9 * kMs, kMs, 0), exchange(20 * kMs, 5 * kMs, kMs / 2, 3 * kMs, kMs),
                                            exchange(40 * kMs, 5 * kMs, kMs, kMs, 0)};
  EXPECT_DOUBLE_EQ(best_clock_offset(samples, "b", 1).moved_ms, 0.0);
}

TEST(DoctorClock, AStepDuringTheMeasurementIsMeasuredAndFails) {
  // The peer's clock jumps by 1 s between the second and the third exchange.
  std::vector<ClockSample> samples = {exchange(0, 0, kMs, kMs, 0), exchange(10 * kMs, 0, kMs, kMs, 0),
                                      exchange(20 * kMs, 1000 * kMs, kMs, kMs, 0), exchange(30 * kMs, 1000 * kMs, kMs / 2, kMs / 2, 0)};
  auto o = best_clock_offset(samples, "node-b", 2);
  EXPECT_NEAR(o.moved_ms, 1000.0 - 1.0 - 0.5, 1e-9);  // the smallest step the round trips allow
  EXPECT_DOUBLE_EQ(o.first_offset_ms, 0.0);
  EXPECT_DOUBLE_EQ(o.last_offset_ms, 1000.0);
  ClockMeasurement m;
  m.measured = true;
  m.offsets = {o};
  const auto c = check_clock(m, 10.0);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.reason.find("node-b (rank 2)'s clock stepped by at least 998.500 ms"), std::string::npos) << c.reason;

  // A step inside one exchange (between the peer's two readings) gives a negative round trip:
  // that sample is not picked as the best, and the step is still seen.
  ClockSample inside = exchange(40 * kMs, 0, kMs, kMs, 0);
  inside.t2_ns += 1000 * kMs;
  samples = {exchange(0, 0, kMs, kMs, 0), inside};
  o = best_clock_offset(samples, "node-b", 2);
  EXPECT_DOUBLE_EQ(o.rtt_ms, 2.0);
  EXPECT_DOUBLE_EQ(o.offset_ms, 0.0);
  EXPECT_GT(o.moved_ms, 990.0);
}

TEST(DoctorClock, CheckPassesFailsAndSkips) {
  ClockMeasurement m;
  m.measured = true;
  m.offsets = {{"b", 8, 0.02, 0.05, 64}, {"c", 16, -0.4, 0.05, 64}};
  auto c = check_clock(m, 10.0);
  EXPECT_EQ(c.status, CheckStatus::pass) << c.reason;
  EXPECT_NE(c.reason.find("largest offset -0.400 ms (c)"), std::string::npos) << c.reason;
  EXPECT_EQ(c.details.at("b (rank 8)"), "offset +0.020 ms, rtt 0.050 ms (rank 8, 64 samples)");

  m.offsets.push_back({"d", 24, 25.0, 0.05, 64});
  c = check_clock(m, 10.0);
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.reason.find("d (rank 24) is 25.000 ms ahead of rank 0's clock"), std::string::npos) << c.reason;
  EXPECT_FALSE(c.fix.empty());

  ClockMeasurement slow;
  slow.measured = true;
  slow.offsets = {{"b", 8, 1.0, 30.0, 64}};
  EXPECT_EQ(check_clock(slow, 10.0).status, CheckStatus::warn);

  EXPECT_EQ(check_clock(ClockMeasurement{}, 10.0).status, CheckStatus::skip);
}

TEST(DoctorClock, InjectionIsTestOnlyAndSparesRankZero) {
  unsetenv("MESHBENCH_TEST_CLOCK_OFFSET_MS");
  EXPECT_EQ(injected_clock_offset_ns(25.0, true), 0);
  EXPECT_EQ(injected_clock_offset_ns(25.0, false), 25 * kMs);
  setenv("MESHBENCH_TEST_CLOCK_OFFSET_MS", "-12.5", 1);
  EXPECT_EQ(injected_clock_offset_ns(0.0, true), -12500000);
  setenv("MESHBENCH_TEST_CLOCK_OFFSET_MS", "soon", 1);
  EXPECT_THROW(injected_clock_offset_ns(0.0, false), InputError);
  unsetenv("MESHBENCH_TEST_CLOCK_OFFSET_MS");
}

}  // namespace
}  // namespace meshbench::analysis
