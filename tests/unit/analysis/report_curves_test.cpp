// Reading measured curves at any size, and borrowing the curve of a dimension with equal groups.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/report/curves.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

Curve linear_curve() {
  // t = 5 + bytes/1000 us at 1, 4, 16, 64 KiB.
  Curve c{{{}, "m", "tp", "all_reduce", "per_iteration", "concurrent", 0}, 2, {}};
  for (std::uint64_t b : {1024ULL, 4096ULL, 16384ULL, 65536ULL}) c.points.push_back({b, 5 + static_cast<double>(b) / 1000, 0, 10, 0});
  return c;
}

TEST(ReportCurves, MeasuredSizesReadExactly) {
  const auto r = read_curve(linear_curve(), 4096);
  EXPECT_EQ(r.how, ReadHow::measured);
  EXPECT_DOUBLE_EQ(r.t_us, 5 + 4.096);
}

TEST(ReportCurves, InterpolatesLogLogBetweenMeasuredSizes) {
  const auto r = read_curve(linear_curve(), 2048);
  EXPECT_EQ(r.how, ReadHow::interpolated);
  // 2 KiB is halfway between 1 and 4 KiB in log size: the geometric mean of the two times.
  EXPECT_NEAR(r.t_us, std::sqrt((5 + 1.024) * (5 + 4.096)), 1e-9);
}

TEST(ReportCurves, PowerLawCurvesInterpolateExactly) {
  Curve c{{{}, "m", "ep", "all_to_all", "per_iteration", "concurrent", 0}, 2, {}};
  for (std::uint64_t b = 1024; b <= (1ULL << 20U); b *= 4) c.points.push_back({b, 3e-3 * std::pow(static_cast<double>(b), 0.8), 0, 10, 0});
  for (std::uint64_t b : {3000ULL, 50000ULL, 777777ULL}) {
    EXPECT_NEAR(read_curve(c, b).t_us, 3e-3 * std::pow(static_cast<double>(b), 0.8), 1e-9 * static_cast<double>(b)) << b;
  }
}

TEST(ReportCurves, ExtrapolatesLinearlyInBytesBeyondTheLargestSize) {
  const auto r = read_curve(linear_curve(), 1ULL << 20U);
  EXPECT_EQ(r.how, ReadHow::extrapolated);
  EXPECT_NEAR(r.t_us, 5 + 1048.576, 1e-9);  // the line through the last two points is the curve itself
}

TEST(ReportCurves, FlatTailExtrapolatesProportionally) {
  Curve c = linear_curve();
  c.points.back().t_median_us = c.points[2].t_median_us;  // noise: the last two points do not rise
  const auto r = read_curve(c, 131072);
  EXPECT_EQ(r.how, ReadHow::extrapolated);
  EXPECT_NEAR(r.t_us, c.points.back().t_median_us * 2, 1e-9);
}

TEST(ReportCurves, BelowTheSmallestSizeReadsTheSmallestTime) {
  const auto r = read_curve(linear_curve(), 8);
  EXPECT_EQ(r.how, ReadHow::below_range);
  EXPECT_DOUBLE_EQ(r.t_us, 5 + 1.024);
}

TEST(ReportCurves, SkippedDimensionBorrowsTheCurveOfTheDimensionWithEqualGroups) {
  testing::ScratchDir dir;
  testing::FixtureFile f;
  // Order tp-cp-ep-dp-pp with ETP 1: EDP's groups are DP's. Order tp-cp-dp-ep-pp: EDP's are TP's.
  f.add_mapping("ep-inner", "tp-cp-ep-dp-pp");
  f.add_mapping("dp-inner", "tp-cp-dp-ep-pp");
  f.add_point("ep-inner", "dp", "all_reduce", 1024, 7.0);
  f.add_point("dp-inner", "tp", "all_reduce", 1024, 3.0);
  f.add_point("dp-inner", "dp", "all_reduce", 1024, 9.0);
  const auto file = results::ResultsFile::open(f.write(dir / "run.h5"));
  const CurveSet curves(file);
  const Curve* a = curves.find("ep-inner", "edp", "all_reduce", "per_iteration", "concurrent");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->key.dim, "dp");
  EXPECT_DOUBLE_EQ(a->points.at(0).t_median_us, 7.0);
  const Curve* b = curves.find("dp-inner", "edp", "all_reduce", "per_iteration", "concurrent");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->key.dim, "tp");
  EXPECT_EQ(curves.find("ep-inner", "ep", "all_to_all", "per_iteration", "concurrent"), nullptr);
  EXPECT_EQ(curves.find("ep-inner", "dp", "all_reduce", "batched", "concurrent"), nullptr);
  EXPECT_EQ(curves.same_groups("dp-inner", "ep"), (std::vector<std::string>{"dp"}));
}

}  // namespace
}  // namespace meshbench::analysis
