// The decisions around the machine-state probe, on readings given by hand: a node's best and
// ratio, the worse of two readings, when a visit is disturbed and when it is measured again,
// and the test readings' parser. The probe's own MPI is exercised by
// integration.run.machine_state_remeasures.
#include <gtest/gtest.h>

#include "bench/sensors/machine_state.hpp"
#include "common/error.hpp"

namespace meshbench::bench {

TEST(MachineState, NodeBestFollowsTheFastestReading) {
  NodeStateBest best;
  EXPECT_DOUBLE_EQ(best.observe(330), 1.0);  // the first reading is the best so far
  EXPECT_DOUBLE_EQ(best.observe(55), 1.0);
  EXPECT_DOUBLE_EQ(best.observe(330), 6.0);
  EXPECT_DOUBLE_EQ(best.observe(66), 1.2);
  EXPECT_DOUBLE_EQ(best.best(), 55.0);
}

TEST(MachineState, WorseOfTakesTheLargerRatio) {
  const StateReading a{1.1, 60, 1}, b{6.0, 330, 2};
  EXPECT_DOUBLE_EQ(worse_of(a, b).ns, 330);
  EXPECT_DOUBLE_EQ(worse_of(b, a).ns, 330);
  EXPECT_DOUBLE_EQ(worse_of(a, a).ratio, 1.1);
}

TEST(MachineState, DisturbedBeyondTheFactorOnly) {
  StatePolicy p;
  p.factor = 2.0;
  EXPECT_FALSE(disturbed({2.0, 110, 0}, p));
  EXPECT_TRUE(disturbed({2.01, 111, 0}, p));
  EXPECT_FALSE(disturbed({1.0, 0, 0}, p));  // no node probed
}

TEST(MachineState, MeasuredAgainWhileAttemptsAndBudgetLast) {
  StatePolicy p;
  p.max_attempts = 3;
  const StateReading bad{6, 330, 0}, good{1.1, 60, 0};
  EXPECT_TRUE(measure_again(bad, 1, 10, p));
  EXPECT_TRUE(measure_again(bad, 2, 10, p));
  EXPECT_FALSE(measure_again(bad, 3, 10, p));   // the third attempt is kept whatever its state
  EXPECT_FALSE(measure_again(bad, 1, 0, p));    // no budget left
  EXPECT_FALSE(measure_again(good, 1, 10, p));  // not disturbed
  p.enabled = false;
  EXPECT_FALSE(measure_again(bad, 1, 10, p));
}

TEST(MachineState, TestReadingsParseOrAreRefused) {
  EXPECT_TRUE(parse_test_readings(nullptr).empty());
  EXPECT_EQ(parse_test_readings("55,330.5,55"), (std::vector<double>{55, 330.5, 55}));
  for (const char* bad : {"55,,330", "fast", "55,-1", "0", "1e999", "55x"}) {
    EXPECT_THROW(parse_test_readings(bad), InputError) << bad;
  }
}

}  // namespace meshbench::bench
