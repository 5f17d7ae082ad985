#include "mapping/rank_groups.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace meshbench::mapping {

// mapping-anchors.md §1.4: W=16, TP2 PP2 EP2 (ETP = TP), order tp-cp-ep-dp-pp.
TEST(RankGroups, MegatronWorkedExampleW16) {
  Layout l{.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 2};
  const auto g = rank_groups(l);
  EXPECT_EQ(g[Dim::tp], (RankGroups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(g[Dim::dp], (RankGroups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
  EXPECT_EQ(g[Dim::pp], (RankGroups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}));
  EXPECT_EQ(g[Dim::ep], (RankGroups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
  EXPECT_EQ(g[Dim::edp], (RankGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
  EXPECT_EQ(g[Dim::etp], g[Dim::tp]);
}

TEST(RankGroups, PpNotLastNeedsEqualDataParallelSizes) {
  Layout l{.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 2, .etp = 0, .order = "tp-cp-ep-pp-dp"};
  EXPECT_THROW(rank_groups(l), InputError);
}

}  // namespace meshbench::mapping
