#include <gtest/gtest.h>

#include "bench/runner.hpp"

namespace meshbench::bench {
namespace {

using mapping::Dim;

// W=8, TP2 CP2: Megatron's dp is [0,4] [1,5] [2,6] [3,7]; the gradients are reduced over dp-cp,
// every rank with the same TP coordinate: [0,2,4,6] [1,3,5,7]. DP is measured there.
TEST(MeasuredGroups, DataParallelWithContextParallelIsTheDpCpGroup) {
  const mapping::Layout l{.world = 8, .tp = 2, .cp = 2};
  const auto m = mapping::make_mapping("id", "", l, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(m.groups[Dim::dp], (mapping::RankGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(measured_groups(m, Dim::dp), (mapping::RankGroups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(measured_groups(m, Dim::cp), m.groups[Dim::cp]);
  EXPECT_EQ(measured_groups(m, Dim::tp), m.groups[Dim::tp]);
}

TEST(MeasuredGroups, WithoutContextParallelDataParallelIsMegatrons) {
  const mapping::Layout l{.world = 8, .tp = 2};
  const auto m = mapping::make_mapping("id", "", l, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(measured_groups(m, Dim::dp), m.groups[Dim::dp]);
  EXPECT_EQ(measured_groups(m, Dim::dp), (mapping::RankGroups{{0, 2, 4, 6}, {1, 3, 5, 7}}));
}

}  // namespace
}  // namespace meshbench::bench
