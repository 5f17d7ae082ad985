// Which ranks form which NCCL communicator, and who creates its unique id.
#include "bench/comm_groups.hpp"

#include <gtest/gtest.h>

namespace meshbench::bench {

using mapping::Dim;

namespace {

std::vector<std::vector<int>> members(const std::vector<CommGroup>& groups) {
  std::vector<std::vector<int>> out;
  for (const auto& g : groups) out.push_back(g.world_ranks);
  return out;
}

mapping::Mapping tp2_dp2(std::vector<int> slot_of_rank) {
  mapping::Layout l;
  l.world = 4;
  l.tp = 2;
  return mapping::make_mapping("m", "test", l, std::move(slot_of_rank));
}

}  // namespace

TEST(NcclCommGroups, IdentityPlacementFollowsMegatronGroups) {
  const auto m = tp2_dp2({0, 1, 2, 3});
  const std::vector<int> slot_of_world = {0, 1, 2, 3};
  EXPECT_EQ(members(dimension_communicators(m, Dim::tp, slot_of_world)), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(members(dimension_communicators(m, Dim::dp, slot_of_world)), (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
}

TEST(NcclCommGroups, PlacementMovesLogicalRanksToOtherProcesses) {
  // Logical rank 1 sits on slot 2: TP group {0,1} is the processes on slots 0 and 2.
  const auto m = tp2_dp2({0, 2, 1, 3});
  const std::vector<int> slot_of_world = {0, 1, 2, 3};
  EXPECT_EQ(members(dimension_communicators(m, Dim::tp, slot_of_world)), (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  EXPECT_EQ(members(dimension_communicators(m, Dim::dp, slot_of_world)), (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
}

TEST(NcclCommGroups, RankOrderIsTheGroupListsNotTheWorldOrder) {
  // The launcher put world rank 0 on slot 3 and world rank 3 on slot 0. Logical rank 0 (first
  // of TP group {0,1}) is on slot 3, so world rank 0 is that communicator's NCCL rank 0; logical
  // rank 1, on slot 0, is world rank 3 and NCCL rank 1.
  const auto m = tp2_dp2({3, 0, 1, 2});
  const std::vector<int> slot_of_world = {3, 1, 2, 0};
  const auto tp = dimension_communicators(m, Dim::tp, slot_of_world);
  EXPECT_EQ(members(tp), (std::vector<std::vector<int>>{{0, 3}, {1, 2}}));
  const auto dp = dimension_communicators(m, Dim::dp, slot_of_world);
  EXPECT_EQ(members(dp), (std::vector<std::vector<int>>{{0, 1}, {3, 2}}));
  // In the DP group {3,2} world rank 3 is NCCL rank 0 and creates the id.
  const auto who = nccl_membership(dp[1].world_ranks, 2);
  EXPECT_EQ(who.nranks, 2);
  EXPECT_EQ(who.rank, 1);
  EXPECT_EQ(who.id_root, 0);
  EXPECT_EQ(who.id_root_world, 3);
}

TEST(NcclCommGroups, EveryRankInExactlyOneCommunicatorPerDimension) {
  mapping::Layout l;
  l.world = 8;
  l.tp = 2;
  l.pp = 2;
  l.ep = 2;
  const auto m = mapping::make_mapping("m", "test", l, {7, 6, 5, 4, 3, 2, 1, 0});
  const std::vector<int> slot_of_world = {0, 1, 2, 3, 4, 5, 6, 7};
  for (Dim dim : mapping::kAllDims) {
    std::vector<int> seen(8, 0);
    for (const auto& g : dimension_communicators(m, dim, slot_of_world)) {
      EXPECT_EQ(static_cast<int>(g.world_ranks.size()), l.size(dim));
      for (int w : g.world_ranks) ++seen[static_cast<std::size_t>(w)];
    }
    EXPECT_EQ(seen, std::vector<int>(8, 1)) << mapping::to_string(dim);
  }
}

TEST(NcclCommGroups, MembershipOfNonMember) {
  const std::vector<int> group = {4, 6};
  EXPECT_EQ(nccl_membership(group, 5).rank, -1);
  EXPECT_EQ(nccl_membership(group, 6).rank, 1);
}

TEST(NcclCommGroups, SlotListMustBeAPermutation) {
  const auto m = tp2_dp2({0, 1, 2, 3});
  EXPECT_THROW(dimension_communicators(m, Dim::tp, {0, 0, 1, 2}), std::invalid_argument);
}

}  // namespace meshbench::bench
