#include "mapping/candidates.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "common/error.hpp"
#include "synthetic_nodes.hpp"

namespace meshbench::mapping {

namespace {

using testing::make_node;
using testing::NodeSpec;

const Candidate* named(const RankedCandidates& r, const std::string& name) {
  for (const auto& c : r.ranked) {
    if (c.mapping.name == name) return &c;
    for (const auto& a : c.mapping.aliases) {
      if (a == name) return &c;
    }
  }
  return nullptr;
}

std::string listing(const RankedCandidates& r) {
  std::string s;
  for (const auto& c : r.ranked) {
    s += c.mapping.name + " " + std::to_string(c.score.total_us) + " tp_crosses=" + std::to_string(c.score.of(Dim::tp).crosses_nodes);
    for (const auto& a : c.mapping.aliases) s += " =" + a;
    s += "\n";
  }
  return s;
}

// p5 × 4, TP8 ETP1 EP8 PP4 (the must-show).
struct P5x4 {
  topology::ClusterTopology topo = topology::ClusterTopology::replicate(testing::p5_node(), 4);
  Layout layout{.world = 32, .tp = 8, .cp = 1, .pp = 4, .ep = 8, .etp = 1};
};

}  // namespace

// Hand-derived in the comment of RankGroups tests' style: EDP = DP = 1 so any order passes the
// pp-last rule; PP groups agree only where the dense stride (product of tp, and dp/cp = 1,
// before pp) equals the expert one (product of etp = 1 and ep before pp): tp-ep-pp (own),
// ep-tp-pp, pp-ep-tp, pp-tp-ep pass; ep-pp-tp (1 vs 8) and tp-pp-ep (8 vs 1) fail.
TEST(Candidates, ValidOrdersForP5Layout) {
  const P5x4 c;
  EXPECT_EQ(valid_orders(c.layout), (std::vector<std::string>{"tp-cp-ep-dp-pp", "ep-tp-pp", "pp-ep-tp", "pp-tp-ep"}));
}

TEST(Candidates, P5FourNodesKeepsTpInsideANode) {
  const P5x4 c;
  const CostModel model(c.topo, default_cost_params(c.topo));
  const auto r = generate_candidates(c.layout, c.topo, model);
  ASSERT_FALSE(r.ranked.empty());
  const auto& best = r.ranked.front();
  EXPECT_FALSE(best.score.of(Dim::tp).crosses_nodes) << listing(r);
  for (const auto& g : best.mapping.slot_groups(Dim::tp)) {
    std::set<int> nodes;
    for (int s : g) nodes.insert(c.topo.node_of(s));
    EXPECT_EQ(nodes.size(), 1U);
  }
  // The orders that put PP fastest spread TP over all four nodes, and rank below.
  const Candidate* pp_first = named(r, "order:pp-ep-tp");
  ASSERT_NE(pp_first, nullptr) << listing(r);
  EXPECT_TRUE(pp_first->score.of(Dim::tp).crosses_nodes);
  EXPECT_EQ(pp_first->score.of(Dim::tp).max_nodes_per_group, 4);
  EXPECT_GT(pp_first->score.total_us, best.score.total_us);
}

TEST(Candidates, P5FourNodesWithAWorkload) {
  const P5x4 c;
  Workload w;
  w.layers = 32;
  const CostModel model(c.topo, default_cost_params(c.topo), w);
  const auto r = generate_candidates(c.layout, c.topo, model);
  EXPECT_FALSE(r.ranked.front().score.of(Dim::tp).crosses_nodes) << listing(r);
  EXPECT_FALSE(r.ranked.front().score.of(Dim::ep).crosses_nodes) << listing(r);
  EXPECT_TRUE(r.ranked.front().score.of(Dim::pp).crosses_nodes);
}

TEST(Candidates, DuplicatesDroppedWithTheirNamesKept) {
  const P5x4 c;
  const CostModel model(c.topo, default_cost_params(c.topo));
  const auto r = generate_candidates(c.layout, c.topo, model);
  // ep-tp-pp gives the same groups as tp-ep-pp when ETP = 1 (TP and EP both [0..7]).
  const Candidate* own = named(r, "order:tp-cp-ep-dp-pp");
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->mapping.name, "order:tp-cp-ep-dp-pp");
  EXPECT_NE(std::find(own->mapping.aliases.begin(), own->mapping.aliases.end(), "order:ep-tp-pp"), own->mapping.aliases.end());
  std::set<std::uint64_t> digests;
  std::set<std::string> names;
  for (const auto& cand : r.ranked) {
    EXPECT_TRUE(digests.insert(cand.digest).second);
    EXPECT_TRUE(names.insert(cand.mapping.name).second);
    EXPECT_EQ(cand.digest, structure_digest(cand.mapping));
  }
  for (std::size_t i = 0; i < r.ranked.size(); ++i) {
    for (std::size_t j = i + 1; j < r.ranked.size(); ++j) EXPECT_FALSE(same_structure(r.ranked[i].mapping, r.ranked[j].mapping));
  }
  EXPECT_EQ(r.stats.distinct, static_cast<int>(r.ranked.size()));
  EXPECT_GT(r.stats.generated, r.stats.distinct);
  // Ranked fastest first.
  for (std::size_t i = 1; i < r.ranked.size(); ++i) EXPECT_LE(r.ranked[i - 1].score.total_us, r.ranked[i].score.total_us);
}

// Two single-NIC nodes of 8 GPUs, W=16 TP2 DP8 (EP 1: a dense model, so the sweep charges no
// expert dimensions). order:tp-dp keeps TP on NVLink and sends the two
// DP groups (4 members per node) through the NIC; order:dp-tp keeps DP inside and sends the
// eight TP pairs through it. Sweep-mode factors (mean over AR, AG, RS): TP n=2 → 2/3, DP n=8
// → 7/6. Per byte of sweep, with 10 GB/s NICs and 100 GB/s NVLink:
//   with contention:    tp-dp: DP 7/6 / (10/2) = 0.233   dp-tp: TP 2/3 / (10/8) = 0.533
//   without contention: tp-dp: DP 7/6 / 10 = 0.117      dp-tp: TP 2/3 / 10 = 0.067
// so ignoring contention flips the ranking towards the mapping with more flows per NIC.
TEST(Candidates, RemovingNicContentionFlipsTheRanking) {
  const auto topo = topology::ClusterTopology::replicate(
      make_node({.gpus = 8, .nics = 1, .nic_gbps = 10, .nvl_gbps = 100, .numa = 1, .nvlink = true, .gpus_per_switch = 8}), 2);
  const Layout layout{.world = 16, .tp = 2};
  CostParams p = default_cost_params(topo);
  p.nccl_tuning = false;  // the α-β arithmetic below
  for (auto& l : p.links) l.alpha_us = 0;
  const CostModel with(topo, p);
  p.contention = false;
  const CostModel without(topo, p);
  const auto a = generate_candidates(layout, topo, with);
  const auto b = generate_candidates(layout, topo, without);
  const Candidate* tp_dp_with = named(a, "order:tp-cp-ep-dp-pp");
  const Candidate* dp_tp_with = named(a, "order:dp-tp");
  const Candidate* tp_dp_without = named(b, "order:tp-cp-ep-dp-pp");
  const Candidate* dp_tp_without = named(b, "order:dp-tp");
  ASSERT_TRUE(tp_dp_with && dp_tp_with && tp_dp_without && dp_tp_without) << listing(a) << listing(b);
  EXPECT_EQ(dp_tp_with->score.of(Dim::tp).max_nic_flows, 8);
  EXPECT_EQ(tp_dp_with->score.of(Dim::dp).max_nic_flows, 2);
  EXPECT_LT(tp_dp_with->score.total_us, dp_tp_with->score.total_us);
  EXPECT_GT(tp_dp_without->score.total_us, dp_tp_without->score.total_us);
  // The ratio follows the arithmetic above (NVLink terms included: TP 2/3 / 100, DP 7/6 / 100).
  EXPECT_NEAR(dp_tp_with->score.total_us / tp_dp_with->score.total_us, (0.5333 + 7.0 / 600) / (0.2333 + 2.0 / 300), 0.01);
  // And the top candidate follows: TP inside a node with contention, across without.
  EXPECT_FALSE(a.ranked.front().score.of(Dim::tp).crosses_nodes) << listing(a);
  EXPECT_TRUE(b.ranked.front().score.of(Dim::tp).crosses_nodes) << listing(b);
}

TEST(Candidates, RandomBaselineIsReproducible) {
  const P5x4 c;
  const CostModel model(c.topo, default_cost_params(c.topo));
  const auto a = generate_candidates(c.layout, c.topo, model, {.random_seed = 7});
  const auto b = generate_candidates(c.layout, c.topo, model, {.random_seed = 7});
  const auto d = generate_candidates(c.layout, c.topo, model, {.random_seed = 8});
  const Candidate* ra = named(a, "random(seed=7)");
  const Candidate* rb = named(b, "random(seed=7)");
  const Candidate* rd = named(d, "random(seed=8)");
  ASSERT_TRUE(ra && rb && rd);
  EXPECT_EQ(ra->mapping.slot_of_rank, rb->mapping.slot_of_rank);
  EXPECT_NE(ra->mapping.slot_of_rank, rd->mapping.slot_of_rank);
  EXPECT_EQ(ra->kind, "random");
  // A random placement of 32 ranks almost surely spreads TP over nodes; it ranks last here.
  EXPECT_EQ(a.ranked.back().kind, "random") << listing(a);
}

TEST(Candidates, SeveralRandomPlacementsAreSeededApart) {
  const P5x4 c;
  const CostModel model(c.topo, default_cost_params(c.topo));
  const auto none = generate_candidates(c.layout, c.topo, model, {.random_seed = 7, .random_placements = 0});
  const auto three = generate_candidates(c.layout, c.topo, model, {.random_seed = 7, .random_placements = 3});
  const auto count_random = [](const RankedCandidates& r) {
    return std::count_if(r.ranked.begin(), r.ranked.end(), [](const Candidate& x) { return x.kind == "random"; });
  };
  EXPECT_EQ(count_random(none), 0) << listing(none);
  // 32 ranks placed at random three times: three distinct placements, seeds 7, 8, 9.
  EXPECT_EQ(count_random(three), 3) << listing(three);
  const Candidate* r9 = named(three, "random(seed=9)");
  ASSERT_TRUE(r9 != nullptr);
  const auto d = generate_candidates(c.layout, c.topo, model, {.random_seed = 9});
  EXPECT_EQ(r9->mapping.slot_of_rank, named(d, "random(seed=9)")->mapping.slot_of_rank);
  EXPECT_THROW(generate_candidates(c.layout, c.topo, model, {.random_placements = -1}), InputError);
}

TEST(Candidates, SearchNeverLosesToItsSeed) {
  const P5x4 c;
  const CostModel model(c.topo, default_cost_params(c.topo));
  const auto r = generate_candidates(c.layout, c.topo, model);
  const Candidate* s = nullptr;
  for (const auto& cand : r.ranked) {
    if (cand.kind == "search") s = &cand;
    for (const auto& a : cand.mapping.aliases) {
      if (a.rfind("search(from=", 0) == 0) s = &cand;
    }
  }
  ASSERT_NE(s, nullptr) << listing(r);
  EXPECT_LE(s->score.total_us, r.ranked.front().score.total_us * (1 + 1e-9));
  EXPECT_GT(r.stats.search_evaluations, 0);
}

// p4d-like: two GPUs share a PCIe switch and a NIC. DP (8 nodes... here 2) is the heaviest
// cross-node dimension; pairs of its ranks under one switch halve the flows per NIC.
TEST(Candidates, SharedNicsGetPairsUnderASwitch) {
  const auto topo = topology::ClusterTopology::replicate(
      make_node({.gpus = 8, .nics = 4, .nic_gbps = 12.5, .nvl_gbps = 150, .numa = 2, .nvlink = true, .gpus_per_switch = 2}), 4);
  const Layout layout{.world = 32, .tp = 2, .cp = 1, .pp = 2};
  const CostModel model(topo, default_cost_params(topo));
  const auto r = generate_candidates(layout, topo, model);
  bool found = false;
  for (const auto& cand : r.ranked) {
    found |= cand.mapping.name.find("-pairs-under-switch") != std::string::npos;
    for (const auto& a : cand.mapping.aliases) found |= a.find("-pairs-under-switch") != std::string::npos;
  }
  EXPECT_TRUE(found) << listing(r);
}

// Nodes of different sizes (8 and 4 GPUs): no block symmetry, every candidate still a valid
// permutation and TP2 kept inside nodes by the best.
TEST(Candidates, HeterogeneousNodes) {
  const auto topo =
      topology::ClusterTopology::from_nodes({make_node({.gpus = 8, .nics = 8}, "big"), make_node({.gpus = 4, .nics = 4}, "small")});
  ASSERT_FALSE(topo.homogeneous());
  const Layout layout{.world = 12, .tp = 2};
  const CostModel model(topo, default_cost_params(topo));
  const auto r = generate_candidates(layout, topo, model);
  ASSERT_FALSE(r.ranked.empty());
  for (const auto& c : r.ranked) {
    std::vector<int> sorted = c.mapping.slot_of_rank;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < 12; ++i) EXPECT_EQ(sorted[static_cast<std::size_t>(i)], i);
  }
  EXPECT_FALSE(r.ranked.front().score.of(Dim::tp).crosses_nodes) << listing(r);
}

TEST(Candidates, RefusesATopologyOfAnotherSize) {
  const P5x4 c;
  const CostModel model(c.topo, default_cost_params(c.topo));
  Layout l = c.layout;
  l.world = 64;
  EXPECT_THROW(generate_candidates(l, c.topo, model), InputError);
}

}  // namespace meshbench::mapping
