// The statistics of compare, against reference values from scipy.stats.mannwhitneyu (1.10).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/compare/regression_stats.hpp"

namespace meshbench::analysis {
namespace {

TEST(CompareStats, ExactMannWhitneyMatchesScipy) {
  const std::vector<double> a = {1, 2, 3, 4, 5}, b = {3.5, 6, 7, 8, 9};
  const auto r = mann_whitney(a, b);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 23.0);
  EXPECT_NEAR(r.p_slower, 0.015873015873015872, 1e-12);  // scipy: alternative='greater', method='exact'
  EXPECT_NEAR(r.p_faster, 0.9920634920634919, 1e-12);
  const auto separated = mann_whitney(std::vector<double>{1, 2, 3}, std::vector<double>{4, 5, 6});
  EXPECT_NEAR(separated.p_slower, 1.0 / 20.0, 1e-12);  // one arrangement of C(6,3)
}

TEST(CompareStats, AsymptoticMannWhitneyMatchesScipyWithoutAutocorrelation) {
  std::vector<double> a, b;
  for (int i = 0; i < 50; ++i) a.push_back((i * 37) % 101);
  for (int i = 0; i < 60; ++i) b.push_back((i * 53 + 7) % 101 + 10);
  const auto r = mann_whitney(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 1792.0);
  EXPECT_DOUBLE_EQ(r.inflation, 1.0);  // lag-1 autocorrelation of the ranks is negative
  EXPECT_NEAR(r.p_slower, 0.04006107906776075, 1e-9);
  EXPECT_NEAR(r.p_faster, 0.9604541799924706, 1e-9);
}

TEST(CompareStats, TieCorrectionMatchesScipy) {
  std::vector<double> a, b;
  for (int k = 0; k < 6; ++k) {
    for (double v : {1, 5, 2, 4, 3}) a.push_back(v);
    for (double v : {2, 6, 3, 5, 4}) b.push_back(v);
  }
  const auto r = mann_whitney(a, b);
  EXPECT_DOUBLE_EQ(r.u, 612.0);
  EXPECT_DOUBLE_EQ(r.inflation, 1.0);
  EXPECT_NEAR(r.p_slower, 0.007570199322809406, 1e-9);
}

TEST(CompareStats, AutocorrelatedSamplesWeakenTheEvidence) {
  // The same values, once interleaved (no autocorrelation) and once in long runs (a drifting
  // machine): the runs must give a larger p-value, not the same one.
  std::vector<double> a_iid, b_iid, a_drift, b_drift;
  for (int i = 0; i < 200; ++i) {
    const double noise = ((i * 37) % 101) / 100.0;
    a_iid.push_back(10 + noise);
    b_iid.push_back(10.15 + ((i * 53) % 101) / 100.0);
  }
  a_drift = a_iid;
  b_drift = b_iid;
  std::sort(a_drift.begin(), a_drift.end());
  std::sort(b_drift.begin(), b_drift.end());
  const auto iid = mann_whitney(a_iid, b_iid), drift = mann_whitney(a_drift, b_drift);
  EXPECT_DOUBLE_EQ(iid.u, drift.u);
  EXPECT_GT(drift.inflation, 10.0);
  EXPECT_LT(iid.p_slower, 0.01);
  EXPECT_GT(drift.p_slower, 5 * iid.p_slower);
}

TEST(CompareStats, VarianceInflationOfAnAr1Series) {
  // x_t = 0.8 x_{t-1} + e_t: the variance of the mean is about (1+0.8)/(1-0.8) = 9 times the
  // independent case. The innovations are a fixed pseudo-random sequence.
  std::vector<double> x;
  double v = 0;
  std::uint64_t s = 12345;
  for (int i = 0; i < 20000; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double e = static_cast<double>(s >> 11U) / 9007199254740992.0 - 0.5;
    v = 0.8 * v + e;
    x.push_back(v);
  }
  EXPECT_NEAR(variance_inflation(x), 9.0, 1.5);
  std::vector<double> alternating;
  for (int i = 0; i < 100; ++i) alternating.push_back(i % 2);
  EXPECT_DOUBLE_EQ(variance_inflation(alternating), 1.0);
  EXPECT_DOUBLE_EQ(variance_inflation(std::vector<double>{1, 2, 3}), 1.0);  // too short to say
}

TEST(CompareStats, BenjaminiHochbergAdjustsInInputOrder) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005, 0.5};
  const auto q = benjamini_hochberg(p);
  const std::vector<double> expected = {0.025, 0.05, 0.05, 0.025, 0.5};
  ASSERT_EQ(q.size(), expected.size());
  for (std::size_t i = 0; i < q.size(); ++i) EXPECT_NEAR(q[i], expected[i], 1e-12) << i;
  EXPECT_TRUE(benjamini_hochberg({}).empty());
}

TEST(CompareStats, MedianOfOddAndEvenCounts) {
  EXPECT_DOUBLE_EQ(median_of({3, 1, 2}), 2.0);
  EXPECT_DOUBLE_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median_of({}), 0.0);
}

TEST(CompareStats, BootstrapIntervalCoversTheTrueRatioAndIsRepeatable) {
  std::vector<double> a, b;
  for (int i = 0; i < 300; ++i) {
    const double u = ((i * 37) % 101) / 100.0;
    a.push_back(100 * (1 + 0.1 * u));
    b.push_back(110 * (1 + 0.1 * (((i * 53) % 101) / 100.0)));
  }
  const auto ci = bootstrap_median_ratio(a, b, 0.95, 500, 7);
  EXPECT_LT(ci.low, 1.10);
  EXPECT_GT(ci.high, 1.10);
  EXPECT_GT(ci.low, 1.05);  // a 10% shift with 10% noise and 300 samples is well resolved
  const auto again = bootstrap_median_ratio(a, b, 0.95, 500, 7);
  EXPECT_DOUBLE_EQ(ci.low, again.low);
  EXPECT_DOUBLE_EQ(ci.high, again.high);
}

TEST(CompareStats, StudentTailMatchesScipy) {
  EXPECT_NEAR(student_t_upper_tail(2.0, 3), 0.06966298427942155, 1e-12);
  EXPECT_NEAR(student_t_upper_tail(5.0, 1), 0.06283295818900117, 1e-12);
  EXPECT_NEAR(student_t_upper_tail(3.0, 10), 0.006671827511284783, 1e-12);
  EXPECT_NEAR(student_t_upper_tail(0.5, 2), 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(student_t_upper_tail(-1.0, 5), 0.8183912661754387, 1e-12);
  EXPECT_NEAR(student_t_upper_tail(1.0, 0), normal_upper_tail(1.0), 1e-15);  // 0 means the normal
}

TEST(CompareStats, MannWhitneyMinimumP) {
  EXPECT_NEAR(mann_whitney_min_p(3, 3), 1.0 / 20, 1e-12);
  EXPECT_NEAR(mann_whitney_min_p(5, 5), 1.0 / 252, 1e-12);
  EXPECT_LT(mann_whitney_min_p(30, 30), 1e-15);
}

// The normal quantile, by bisection on the tail.
double normal_quantile(double p) {
  double lo = -10, hi = 10;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (1 - normal_upper_tail(mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Log ratios of 300 points: the normal quantiles at evenly spread probabilities (a sample with
// exactly normal shape) scaled by `sigma`, shifted by `shift`, with `jumps` points moved by a
// factor `jump` alternately up and down (what an oversubscribed machine does between reruns).
std::vector<double> moved_points(double shift, double sigma, int jumps = 0, double jump = 0) {
  std::vector<double> x;
  for (int i = 0; i < 300; ++i) x.push_back(shift + sigma * normal_quantile((i + 0.5) / 300.0));
  for (int j = 0; j < jumps; ++j) x[static_cast<std::size_t>(j * 7 % 300)] += (j % 2 == 0 ? 1 : -1) * std::log(jump);
  return x;
}

TEST(CompareStats, ScatterOfQuietRerunsKeepsTheNormalTail) {
  const auto s = run_to_run_scatter(moved_points(0.01, 0.02));
  ASSERT_TRUE(s.estimated);
  EXPECT_NEAR(s.centre, 0.01, 1e-3);
  EXPECT_NEAR(s.sigma, 0.02, 0.003);
  EXPECT_EQ(s.tail_nu, 0);
  // A 10% slowdown stands out: about 4.8 sigma.
  EXPECT_LT(scatter_upper_tail(s, (std::log(1.10) - s.centre) / s.sigma), 1e-4);
}

TEST(CompareStats, ScatterWithJumpsGetsAHeavyTail) {
  const auto s = run_to_run_scatter(moved_points(0.0, 0.2, 12, 30.0));
  ASSERT_TRUE(s.estimated);
  EXPECT_GT(s.tail_nu, 0);
  EXPECT_LE(s.tail_nu, 3);
  // One more 30x jump is then no surprise among 300 points: its p-value stays well above 0.05/300.
  EXPECT_GT(scatter_upper_tail(s, std::log(30.0) / s.sigma), 0.05 / 300);
  EXPECT_FALSE(run_to_run_scatter(std::vector<double>{0.1, 0.2}).estimated);
}

}  // namespace
}  // namespace meshbench::analysis
