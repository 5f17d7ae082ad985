// Expected lists are derived by hand from Megatron-Core's generate_masked_orthogonal_rank_groups
// (docs/mapping.md, "meshbench groups"): strides are prefix products of the ordered sizes; a group varies the
// masked coordinates (first fastest) with the others fixed; groups are listed by the unmasked
// coordinates, first fastest. The derivation of each case is in its comment.
#include "mapping/rank_groups.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace meshbench::mapping {

namespace {

RankGroups singletons(int n) {
  RankGroups g;
  for (int i = 0; i < n; ++i) g.push_back({i});
  return g;
}

// The message of the InputError rank_groups throws, or "" when it accepts the layout.
std::string rule_broken(const Layout& l) {
  try {
    (void)rank_groups(l);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// Megatron-Core's docstring example: W=16, TP2 PP2 EP2 (ETP = TP), order tp-cp-ep-dp-pp.
TEST(RankGroups, MegatronWorkedExampleW16) {
  Layout l{.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 2};
  const auto g = rank_groups(l);
  EXPECT_EQ(g[Dim::tp], (RankGroups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(g[Dim::dp], (RankGroups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
  EXPECT_EQ(g[Dim::pp], (RankGroups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}));
  EXPECT_EQ(g[Dim::ep], (RankGroups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
  EXPECT_EQ(g[Dim::edp], (RankGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
  EXPECT_EQ(g[Dim::etp], g[Dim::tp]);
  EXPECT_EQ(g[Dim::cp], singletons(16));
}

// §1.4 again with ETP=1, EP=4 (EDP = 16/(1·4·2) = 2). Expert grid [etp1 cp1 ep4 edp2 pp2],
// strides 1,1,1,4,8. EP varies stride 1 (size 4), groups by edp then pp: bases 0,4,8,12. EDP
// varies stride 4 (size 2), groups by ep (0..3) then pp (+8).
TEST(RankGroups, ExpertTensorParallelOneFoldsEpOverTp) {
  Layout l{.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 4, .etp = 1};
  const auto g = rank_groups(l);
  EXPECT_EQ(g[Dim::ep], (RankGroups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}));
  EXPECT_EQ(g[Dim::edp], (RankGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
  EXPECT_EQ(g[Dim::etp], singletons(16));
  EXPECT_EQ(g[Dim::tp], (RankGroups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(g[Dim::dp], (RankGroups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
  EXPECT_EQ(g[Dim::pp], (RankGroups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}));
}

// W=16 TP2 CP2 PP2 (DP 2). Dense grid [tp2 cp2 ep1 dp2 pp2], strides 1,2,4,4,8.
// TP: bases cp,dp,pp = 0,2,4,6,8,...  CP (stride 2): bases tp,dp,pp = 0,1,4,5,8,9,12,13.
// DP (stride 4): bases tp,cp,pp = 0,1,2,3,8,9,10,11. dp-cp: inner cp,dp = 0,2,4,6, bases 0,1,8,9.
// Expert (ETP 2, EP 1, EDP 4): [etp2 cp1 ep1 edp4 pp2], EDP stride 2 = the dp-cp groups.
TEST(RankGroups, ContextParallel) {
  Layout l{.world = 16, .tp = 2, .cp = 2, .pp = 2, .ep = 1};
  const auto g = rank_groups(l);
  EXPECT_EQ(g[Dim::tp], (RankGroups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
  EXPECT_EQ(g[Dim::cp], (RankGroups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
  EXPECT_EQ(g[Dim::dp], (RankGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
  EXPECT_EQ(g[Dim::pp], (RankGroups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}));
  EXPECT_EQ(g[Dim::ep], singletons(16));
  EXPECT_EQ(g[Dim::etp], g[Dim::tp]);
  const RankGroups dp_cp{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}};
  EXPECT_EQ(g[Dim::edp], dp_cp);
  EXPECT_EQ(flat_rank_groups(l).dp_cp.nested(), dp_cp);
}

// W=32 TP2 CP2 PP2 EP4 ETP1: CP and EP together (allowed since the grids split, §1.3).
// Dense [tp2 cp2 ep1 dp4 pp2] strides 1,2,4,4,16; expert [etp1 cp1 ep4 edp4 pp2] strides
// 1,1,1,4,16. EP: inner 0..3, bases edp·4 then pp·16. EDP: inner 0,4,8,12, bases ep then pp.
TEST(RankGroups, ContextAndExpertParallelWithEtpDifferentFromTp) {
  Layout l{.world = 32, .tp = 2, .cp = 2, .pp = 2, .ep = 4, .etp = 1};
  const auto g = rank_groups(l);
  RankGroups tp, cp, pp;
  for (int b = 0; b < 32; b += 2) tp.push_back({b, b + 1});
  for (int b : {0, 1, 4, 5, 8, 9, 12, 13, 16, 17, 20, 21, 24, 25, 28, 29}) cp.push_back({b, b + 2});
  for (int b = 0; b < 16; ++b) pp.push_back({b, b + 16});
  const RankGroups dp{{0, 4, 8, 12},    {1, 5, 9, 13},    {2, 6, 10, 14},   {3, 7, 11, 15},
                      {16, 20, 24, 28}, {17, 21, 25, 29}, {18, 22, 26, 30}, {19, 23, 27, 31}};
  EXPECT_EQ(g[Dim::tp], tp);
  EXPECT_EQ(g[Dim::cp], cp);
  EXPECT_EQ(g[Dim::pp], pp);
  EXPECT_EQ(g[Dim::dp], dp);
  EXPECT_EQ(g[Dim::ep], (RankGroups{{0, 1, 2, 3},
                                    {4, 5, 6, 7},
                                    {8, 9, 10, 11},
                                    {12, 13, 14, 15},
                                    {16, 17, 18, 19},
                                    {20, 21, 22, 23},
                                    {24, 25, 26, 27},
                                    {28, 29, 30, 31}}));
  EXPECT_EQ(g[Dim::edp], dp);
  EXPECT_EQ(g[Dim::etp], singletons(32));
}

// Order tp-cp-ep-pp-dp (Megatron's --use-tp-pp-dp-mapping) with ETP·EP = TP·CP = 2, W=16 TP2
// PP2 EP2 ETP1, so EDP = DP = 4. Dense [tp2 cp1 ep1 pp2 dp4] strides 1,2,2,2,4; expert
// [etp1 cp1 ep2 pp2 edp4] strides 1,1,1,2,4.
TEST(RankGroups, PipelineBeforeDataOrder) {
  Layout l{.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 2, .etp = 1, .order = "tp-cp-ep-pp-dp"};
  const auto g = rank_groups(l);
  const RankGroups pairs{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}};
  const RankGroups pp{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}};
  const RankGroups dp{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}};
  EXPECT_EQ(g[Dim::tp], pairs);
  EXPECT_EQ(g[Dim::pp], pp);
  EXPECT_EQ(g[Dim::dp], dp);
  EXPECT_EQ(g[Dim::ep], pairs);
  EXPECT_EQ(g[Dim::edp], dp);
  EXPECT_EQ(g[Dim::etp], singletons(16));
}

// A pp-first order, W=8 TP2 PP4: dense [pp4 tp2 ...]: PP stride 1 (bases tp·4), TP stride 4.
TEST(RankGroups, PipelineFastestOrder) {
  Layout l{.world = 8, .tp = 2, .cp = 1, .pp = 4, .ep = 1, .etp = 0, .order = "pp-tp-cp-ep-dp"};
  const auto g = rank_groups(l);
  EXPECT_EQ(g[Dim::pp], (RankGroups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(g[Dim::tp], (RankGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
  EXPECT_EQ(g[Dim::dp], singletons(8));
}

// Order omitting size-1 names: RankGenerator appends them (tp, pp, dp, ep, cp order), so
// "dp-tp" for W=8 TP2 DP4 is [dp4 tp2 pp1 ep1 cp1]: DP stride 1, TP stride 4.
TEST(RankGroups, OrderMayOmitSizeOneNames) {
  Layout l{.world = 8, .tp = 2, .cp = 1, .pp = 1, .ep = 1, .etp = 0, .order = "dp-tp"};
  const auto g = rank_groups(l);
  EXPECT_EQ(g[Dim::dp], (RankGroups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(g[Dim::tp], (RankGroups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(RankGroups, RejectsInvalidLayoutsNamingTheRule) {
  // Order not ending in pp with EDP (2) != DP (4).
  EXPECT_NE(rule_broken({.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 2, .etp = 0, .order = "tp-cp-ep-pp-dp"}).find("does not end in pp"),
            std::string::npos);
  // Dense sizes do not divide W.
  EXPECT_NE(rule_broken({.world = 12, .tp = 8}).find("not divisible by TP*CP*PP"), std::string::npos);
  // Expert sizes do not divide W.
  EXPECT_NE(rule_broken({.world = 16, .tp = 2, .cp = 1, .pp = 1, .ep = 3}).find("not divisible by ETP*EP*PP"), std::string::npos);
  // A dimension larger than 1 missing from the order.
  EXPECT_NE(rule_broken({.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 1, .etp = 0, .order = "tp-dp"}).find("leaves out pp"),
            std::string::npos);
  EXPECT_NE(rule_broken({.world = 4, .tp = 2, .cp = 1, .pp = 1, .ep = 1, .etp = 0, .order = "tp-xp"}).find("unknown dimension 'xp'"),
            std::string::npos);
  EXPECT_NE(rule_broken({.world = 4, .tp = 2, .cp = 1, .pp = 1, .ep = 1, .etp = 0, .order = "tp-tp-dp"}).find("twice"), std::string::npos);
  EXPECT_NE(rule_broken({.world = 4, .tp = 0}).find("--tp must be at least 1"), std::string::npos);
  // EDP = DP = 4, the order does not end in pp, and the grids' PP groups differ: dense
  // [ep1 pp2 tp2 dp4] has PP stride 1, expert [ep2 pp2 etp1 edp4] stride 2.
  EXPECT_NE(rule_broken({.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 2, .etp = 1, .order = "ep-pp-tp-dp"}).find("different PP groups"),
            std::string::npos);
  // And a layout that is fine.
  EXPECT_EQ(rule_broken({.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 2}), "");
}

// The flat form lists the same groups as the nested one, and grid_axes the ordered sizes.
TEST(RankGroups, FlatAndAxesAgree) {
  Layout l{.world = 64, .tp = 2, .cp = 2, .pp = 4, .ep = 2, .etp = 1};
  const auto nested = rank_groups(l);
  const auto flat = flat_rank_groups(l);
  for (Dim d : kAllDims) EXPECT_EQ(flat[d].nested(), nested[d]) << to_string(d);
  const auto axes = grid_axes(l, Grid::expert);
  ASSERT_EQ(axes.size(), 5U);
  EXPECT_EQ(axes[0].dim, Dim::etp);
  EXPECT_EQ(axes[0].size, 1);
  EXPECT_EQ(axes[2].dim, Dim::ep);
  EXPECT_EQ(axes[3].dim, Dim::edp);
  EXPECT_EQ(axes[3].size, 64 / (1 * 2 * 4));
}

}  // namespace meshbench::mapping

namespace meshbench::mapping {
namespace {

// Sizes read from a plan file can be anything: their product must not overflow an int (signed
// overflow, found reading the plan reader for its fuzz target).
TEST(RankGroups, SizesWhoseProductOverflowsAnIntAreAnInputError) {
  EXPECT_EQ(rule_broken({.world = 8, .tp = 65536, .cp = 65536, .pp = 65536}),
            "world size 8 is not divisible by TP*CP*PP = 65536*65536*65536; choose sizes whose product divides the world size");
  EXPECT_NE(rule_broken({.world = 8, .tp = 2, .pp = 2, .ep = 1 << 30, .etp = 1 << 30}).find("ETP*EP*PP = 1073741824*1073741824*2"),
            std::string::npos);
}

}  // namespace
}  // namespace meshbench::mapping
