#include <gtest/gtest.h>

#include <algorithm>

#include "bench/group_selection.hpp"

namespace meshbench::bench {
namespace {

// Groups 0..n-1 whose medians are a shuffled 1..n: group g has median (g * 7919) % n + 1.
std::vector<GroupResult> groups(int n) {
  std::vector<GroupResult> out;
  for (int g = 0; g < n; ++g) out.push_back({g, static_cast<double>((static_cast<long long>(g) * 7919) % n + 1), 0});
  return out;
}

TEST(GroupSelection, UpToTheLimitEveryGroupIsKept) {
  EXPECT_EQ(representative_groups(groups(256), 256).size(), 256u);
  EXPECT_EQ(representative_groups(groups(5000), 0).size(), 5000u);
}

TEST(GroupSelection, PastTheLimitTheSlowestQuarterTheExtremesAndTheMedianStand) {
  const int n = 32768;  // PP groups of a 65,536-rank PP2 layout
  const auto kept = representative_groups(groups(n), 256);
  ASSERT_LE(kept.size(), 256u);
  ASSERT_GE(kept.size(), 250u);  // a step may land on the median
  EXPECT_TRUE(std::is_sorted(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.group < b.group; }));
  std::vector<double> medians;
  for (const auto& g : kept) medians.push_back(g.median_us);
  std::sort(medians.begin(), medians.end());
  EXPECT_EQ(medians.front(), 1.0);
  EXPECT_EQ(medians.back(), static_cast<double>(n));
  // The 64 slowest, exactly.
  for (int i = 0; i < 64; ++i) EXPECT_EQ(medians[medians.size() - 1 - static_cast<std::size_t>(i)], static_cast<double>(n - i));
  const int half = n / 2;
  EXPECT_NE(std::find(medians.begin(), medians.end(), static_cast<double>(half)), medians.end());  // the median group
  // The others spread evenly: the lower half of the distribution holds about half of the rest.
  const auto below_median = std::count_if(medians.begin(), medians.end(), [&](double m) { return m <= half; });
  EXPECT_GT(below_median, 80);
  EXPECT_LT(below_median, 110);
}

}  // namespace
}  // namespace meshbench::bench
