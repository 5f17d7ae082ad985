// The statistics that decide when per-iteration timing stops, on seeded synthetic samples with
// answers worked out by hand: nearest-rank percentiles, the median's order-statistic interval,
// and the rule built on them (max_iters; from min_iters on, a spent budget or a narrow enough
// interval) with the chunk sizes between two looks. No clock and no MPI: elapsed times are given.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "bench/src/stopping_rule.hpp"
#include "bench/statistics.hpp"

namespace meshbench::bench {

namespace {

// 1, 2, ..., n in an order shuffled from `seed`: the statistics must not depend on it.
std::vector<double> shuffled_one_to(int n, std::uint64_t seed) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);
  std::mt19937_64 g(seed);
  std::shuffle(v.begin(), v.end(), g);
  return v;
}

// n samples uniform in [1 - spread, 1 + spread), from `seed` (53 bits of the generator the
// standard fixes, rather than a distribution each library implements its own way).
std::vector<double> noisy(int n, double spread, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(1.0 - spread + 2.0 * spread * static_cast<double>(g() >> 11) * 0x1.0p-53);
  return v;
}

}  // namespace

TEST(Statistics, SummaryOfAnOddAndAnEvenCount) {
  const std::vector<double> odd{3, 1, 2};
  const Summary a = summarize(odd);
  EXPECT_EQ(a.count, 3);
  EXPECT_EQ(a.min, 1);
  EXPECT_EQ(a.max, 3);
  EXPECT_EQ(a.median, 2);
  EXPECT_EQ(a.mean, 2);
  EXPECT_EQ(a.p90, 3);  // rank ceil(0.9 · 3) = 3
  // Even: the mean of the middle two, as nccl-tests' summary does.
  const std::vector<double> even{4, 1, 3, 2};
  const Summary b = summarize(even);
  EXPECT_EQ(b.median, 2.5);
  EXPECT_EQ(b.mean, 2.5);
  EXPECT_EQ(b.p90, 4);  // rank ceil(3.6) = 4
  EXPECT_EQ(summarize(std::vector<double>{}).count, 0);
}

TEST(Statistics, NearestRankPercentilesOfOneToAHundred) {
  for (std::uint64_t seed : {1U, 2U, 3U}) {
    const Summary s = summarize(shuffled_one_to(100, seed));
    EXPECT_EQ(s.median, 50.5);
    EXPECT_EQ(s.p90, 90);
    EXPECT_EQ(s.p99, 99);
    EXPECT_EQ(s.mean, 50.5);
    EXPECT_EQ(s.min, 1);
    EXPECT_EQ(s.max, 100);
  }
  const std::vector<double> sorted{10, 20, 30};
  EXPECT_EQ(percentile_sorted(sorted, 0), 10);  // rank 0 reads as the first
  EXPECT_EQ(percentile_sorted(sorted, 50), 20);
  EXPECT_EQ(percentile_sorted(sorted, 100), 30);
  EXPECT_EQ(percentile_sorted(std::vector<double>{}, 50), 0);
}

TEST(Statistics, MedianIntervalOfOneToAHundred) {
  // n = 100: order statistics 50 ± 0.98·10 → indices floor(40.2) = 40 and ceil(59.8) = 60, the
  // values 41 and 61; the median is 50.5: half-width (61 − 41) / (2 · 50.5).
  for (std::uint64_t seed : {1U, 2U, 3U}) EXPECT_DOUBLE_EQ(median_ci_relative_halfwidth(shuffled_one_to(100, seed)), 20.0 / 101.0);
  // Relative: the same in any unit.
  auto scaled = shuffled_one_to(100, 4);
  for (double& x : scaled) x *= 1000;
  EXPECT_DOUBLE_EQ(median_ci_relative_halfwidth(scaled), 20.0 / 101.0);
}

TEST(Statistics, MedianIntervalNeedsSixPositiveSamples) {
  EXPECT_TRUE(std::isinf(median_ci_relative_halfwidth(std::vector<double>(5, 1.0))));
  EXPECT_EQ(median_ci_relative_halfwidth(std::vector<double>(6, 1.0)), 0.0);
  EXPECT_TRUE(std::isinf(median_ci_relative_halfwidth(std::vector<double>(10, 0.0))));
}

TEST(Statistics, MedianIntervalNarrowsWithMoreSamples) {
  // The same ±10% noise: about 1/sqrt(n), so 100 times the samples give a tenth of the width.
  for (std::uint64_t seed : {1U, 2U, 3U}) {
    const double few = median_ci_relative_halfwidth(noisy(20, 0.1, seed));
    const double many = median_ci_relative_halfwidth(noisy(2000, 0.1, seed));
    EXPECT_GT(few, 0.02) << seed;
    EXPECT_LT(many, 0.01) << seed;
    EXPECT_LT(many, few / 4) << seed;
  }
}

TEST(StoppingRule, MaxItersEndsItWhateverTheSpread) {
  const TimingPolicy p{.min_iters = 20, .max_iters = 200, .precision = 0.02, .budget_s = 1e6};
  EXPECT_TRUE(enough_iterations(p, noisy(200, 0.5, 1), 0.001));
  EXPECT_FALSE(enough_iterations(p, noisy(199, 0.5, 1), 0.001));
}

TEST(StoppingRule, NothingStopsBeforeMinIters) {
  const TimingPolicy p{.min_iters = 20, .max_iters = 2000, .precision = 0.02, .budget_s = 1.0};
  // Identical samples (a zero-width interval) and a spent budget: still not before 20.
  EXPECT_FALSE(enough_iterations(p, std::vector<double>(19, 100.0), 5.0));
  EXPECT_TRUE(enough_iterations(p, std::vector<double>(20, 100.0), 0.0));
}

TEST(StoppingRule, ASpentBudgetEndsANoisyPoint) {
  const TimingPolicy p{.min_iters = 20, .max_iters = 2000, .precision = 0.02, .budget_s = 1.0};
  const auto samples = noisy(40, 0.5, 7);
  ASSERT_GT(median_ci_relative_halfwidth(samples), p.precision);
  EXPECT_FALSE(enough_iterations(p, samples, 0.999));
  EXPECT_TRUE(enough_iterations(p, samples, 1.0));
}

TEST(StoppingRule, ANarrowEnoughIntervalEndsItEarly) {
  // 1..100 gives 20/101 ≈ 0.198: enough at a precision of 0.2, not at 0.19.
  const auto samples = shuffled_one_to(100, 5);
  EXPECT_TRUE(enough_iterations(TimingPolicy{.min_iters = 20, .max_iters = 2000, .precision = 0.2, .budget_s = 1e6}, samples, 0.0));
  EXPECT_FALSE(enough_iterations(TimingPolicy{.min_iters = 20, .max_iters = 2000, .precision = 0.19, .budget_s = 1e6}, samples, 0.0));
}

TEST(StoppingRule, ChunksDoubleUntilTheBudgetOrMaxItersBounds) {
  const TimingPolicy p{.min_iters = 20, .max_iters = 200, .precision = 0.02, .budget_s = 1.0};
  // Plenty of budget: as many again as so far, then what is left to max_iters.
  EXPECT_EQ(next_chunk(p, 20, 0.001), 20);
  EXPECT_EQ(next_chunk(p, 160, 0.008), 40);
  // 16 iterations took 0.5 s (31.25 ms each): the 0.5 s left hold 16.
  EXPECT_EQ(next_chunk(p, 16, 0.5), 16);
  // 16 took 0.75 s (46.875 ms each): the 0.25 s left hold 5.33, so 5.
  EXPECT_EQ(next_chunk(p, 16, 0.75), 5);
  // Over budget (a look before min_iters): still one more.
  EXPECT_EQ(next_chunk(p, 10, 2.0), 1);
}

TEST(StoppingRule, ADriverLoopOnSyntheticSamplesStopsWhereWorkedOut) {
  // What measure.cpp's loop does, with a scripted series and no clock: 10 samples of 100 and
  // 10 of 400 alternate (interval (400 − 100) / (2 · 250) = 0.6), then 100 only. At 40 samples
  // (30 of 100, 10 of 400) the interval's ends, indices 13 and 27, are both 100: it stops there.
  const TimingPolicy p{.min_iters = 20, .max_iters = 2000, .precision = 0.02, .budget_s = 1e6};
  std::vector<double> series;
  int chunk = p.min_iters, looks = 0;
  for (;;) {
    for (int i = 0; i < chunk; ++i) {
      const auto k = series.size();
      series.push_back(k < 20 ? (k % 2 == 0 ? 100.0 : 400.0) : 100.0);
    }
    ++looks;
    if (enough_iterations(p, series, 0.0)) break;
    chunk = next_chunk(p, static_cast<int>(series.size()), 0.0);
  }
  EXPECT_EQ(series.size(), 40U);
  EXPECT_EQ(looks, 2);
}

}  // namespace meshbench::bench
