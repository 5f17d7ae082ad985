// Cost model checks against hand arithmetic: time_us = bytes · factor / (GB/s · 1e3) with the
// latencies set to zero, so each expectation is one division.
#include "mapping/cost_model.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <numeric>

#include "common/error.hpp"
#include "mapping/mapping.hpp"
#include "synthetic_nodes.hpp"
#include "tests/unit/input_error_text.hpp"

namespace meshbench::mapping {

namespace {

using testing::make_node;
using testing::NodeSpec;
using topology::LinkClass;

// Two slots per node, NVLink 100 GB/s between them, `nics` NICs of 10 GB/s; latencies zero.
struct TwoByTwo {
  topology::ClusterTopology topo;
  CostParams params;
  explicit TwoByTwo(int nics) {
    topo = topology::ClusterTopology::replicate(
        make_node({.gpus = 2, .nics = nics, .nic_gbps = 10, .nvl_gbps = 100, .numa = 1, .nvlink = true, .gpus_per_switch = 2}), 2);
    params = default_cost_params(topo);
    params.nccl_tuning = false;  // the α-β arithmetic, not NCCL's tuning model
    for (auto& l : params.links) l.alpha_us = 0;
  }
  Score score(const Layout& l, std::vector<int> slots, bool contention = true) const {
    CostParams p = params;
    p.contention = contention;
    const CostModel model(topo, p);
    return model.score(l, flat_rank_groups(l), slots);
  }
  double time(const Layout& l, std::vector<int> slots, Dim d, Op op, std::uint64_t bytes, bool contention = true) const {
    CostParams p = params;
    p.contention = contention;
    const CostModel model(topo, p);
    return model.op_time_us(model.score(l, flat_rank_groups(l), slots).of(d), op, bytes);
  }
};

const Layout kTp2{.world = 4, .tp = 2};

}  // namespace

TEST(CostModel, DefaultsComeFromTheTopology) {
  const auto topo = topology::ClusterTopology::replicate(testing::p5_node(), 2);
  const auto p = default_cost_params(topo);
  EXPECT_DOUBLE_EQ(p[LinkClass::NVL].bandwidth_gbps, 370);
  EXPECT_DOUBLE_EQ(p[LinkClass::NET].bandwidth_gbps, 12.5);
  EXPECT_TRUE(p.contention);
  EXPECT_GT(p[LinkClass::NET].alpha_us, p[LinkClass::NVL].alpha_us);
}

TEST(CostModel, RingInsideANodeUsesItsLinkClass) {
  const TwoByTwo c(2);
  // TP [0,1] on node 0: all-reduce factor 2·1/2 = 1 → 1e6 B / (100 GB/s) = 10 us.
  EXPECT_NEAR(c.time(kTp2, {0, 1, 2, 3}, Dim::tp, Op::all_reduce, 1'000'000), 10.0, 1e-9);
  EXPECT_FALSE(c.score(kTp2, {0, 1, 2, 3}).of(Dim::tp).crosses_nodes);
}

TEST(CostModel, RingAcrossNodesUsesTheRailNics) {
  const TwoByTwo c(2);
  // Ranks 0,1 on slots 0,2: TP crosses nodes, each member has its own 10 GB/s NIC → 100 us.
  const std::vector<int> across{0, 2, 1, 3};
  EXPECT_NEAR(c.time(kTp2, across, Dim::tp, Op::all_reduce, 1'000'000), 100.0, 1e-9);
  const auto s = c.score(kTp2, across).of(Dim::tp);
  EXPECT_TRUE(s.crosses_nodes);
  EXPECT_EQ(s.max_nodes_per_group, 2);
  EXPECT_EQ(s.max_nic_flows, 1);
  EXPECT_EQ(s.worst_link, LinkClass::NET);
}

TEST(CostModel, ConcurrentGroupsShareANic) {
  const TwoByTwo c(1);
  const std::vector<int> across{0, 2, 1, 3};
  // Both TP groups cross nodes through the one NIC of each node: 10/2 GB/s each → 200 us;
  // without contention each group sees the whole NIC → 100 us.
  EXPECT_NEAR(c.time(kTp2, across, Dim::tp, Op::all_reduce, 1'000'000), 200.0, 1e-9);
  EXPECT_NEAR(c.time(kTp2, across, Dim::tp, Op::all_reduce, 1'000'000, false), 100.0, 1e-9);
  EXPECT_EQ(c.score(kTp2, across).of(Dim::tp).max_nic_flows, 2);
}

TEST(CostModel, AllToAllIsBoundByNodeEgress) {
  const TwoByTwo c(2);
  // One EP group of 4 over 2 nodes, 2 members each. Per rank S = 1e6 B: off-node share 2/4, so
  // each node sends 2·S·2/4 = 1e6 B over 2×10 GB/s = 50 us; on-node 1/4·S over 100 GB/s = 2.5 us.
  const Layout l{.world = 4, .tp = 1, .cp = 1, .pp = 1, .ep = 4};
  EXPECT_NEAR(c.time(l, {0, 1, 2, 3}, Dim::ep, Op::all_to_all, 1'000'000), 50.0, 1e-9);
  // The skewed variant, balanced by default: the same traffic as all_to_all.
  EXPECT_EQ(c.params.a2av_skew, kDefaultRoutingSkew);
  EXPECT_NEAR(c.time(l, {0, 1, 2, 3}, Dim::ep, Op::all_to_allv, 1'000'000), 50.0, 1e-9);
}

TEST(CostModel, AllToAllvIsPricedAtTheRoutingSkewsBusiestRank) {
  TwoByTwo c(2);
  const Layout l{.world = 4, .tp = 1, .cp = 1, .pp = 1, .ep = 4};
  // Zipf exponent 1 over 4 ranks: the busiest receives 4 / (1 + 1/2 + 1/3 + 1/4) = 1.92 times the mean.
  c.params.a2av_skew = 1.0;
  EXPECT_NEAR(routing_imbalance(4, 1.0), 48.0 / 25.0, 1e-12);
  EXPECT_NEAR(c.time(l, {0, 1, 2, 3}, Dim::ep, Op::all_to_allv, 1'000'000), 50.0 * 48.0 / 25.0, 1e-9);
  EXPECT_NEAR(c.time(l, {0, 1, 2, 3}, Dim::ep, Op::all_to_all, 1'000'000), 50.0, 1e-9);  // all_to_all is not routed
}

TEST(CostParams, TheRoutingSkewIsOneKeyAndTheOldRatioIsRefusedByName) {
  CostParams p;
  apply_cost_overrides(p, nlohmann::json::parse(R"({"a2av_skew": 0.5})"), "'t.json'");
  EXPECT_EQ(p.a2av_skew, 0.5);
  EXPECT_EQ(to_json(p).at("a2av_skew"), 0.5);
  EXPECT_FALSE(to_json(p).contains("alltoallv_imbalance"));
  const std::string old =
      test_support::error_of([&] { apply_cost_overrides(p, nlohmann::json::parse(R"({"alltoallv_imbalance": 1.25})"), "'t.json'"); });
  EXPECT_NE(old.find("replaced by 'a2av_skew'"), std::string::npos) << old;
  EXPECT_EQ(old.find('\n'), std::string::npos) << old;
  const std::string negative =
      test_support::error_of([&] { apply_cost_overrides(p, nlohmann::json::parse(R"({"a2av_skew": -1})"), "'t.json'"); });
  EXPECT_NE(negative.find("'a2av_skew' must be a number >= 0"), std::string::npos) << negative;
}

TEST(CostModel, SendRecvBetweenStages) {
  const TwoByTwo c(1);
  // PP 2 with stride 2 (W=4, TP2): pairs (0→2) and (1→3) leave node 0 through its one NIC:
  // 5 GB/s each → 1e6 B in 200 us; alone 100 us.
  const Layout l{.world = 4, .tp = 2, .cp = 1, .pp = 2};
  EXPECT_NEAR(c.time(l, {0, 1, 2, 3}, Dim::pp, Op::send_recv, 1'000'000), 200.0, 1e-9);
  EXPECT_NEAR(c.time(l, {0, 1, 2, 3}, Dim::pp, Op::send_recv, 1'000'000, false), 100.0, 1e-9);
}

TEST(CostModel, LatencyCountsRingSteps) {
  TwoByTwo c(2);
  c.params[LinkClass::NVL].alpha_us = 3;
  // All-reduce over 2 ranks: 2(n-1) = 2 steps of 3 us, plus 8 B / 100 GB/s.
  EXPECT_NEAR(c.time(kTp2, {0, 1, 2, 3}, Dim::tp, Op::all_reduce, 8), 6.0 + 8.0 / 1e5, 1e-9);
  EXPECT_NEAR(c.time(kTp2, {0, 1, 2, 3}, Dim::tp, Op::all_gather, 8), 3.0 + 4.0 / 1e5, 1e-9);
}

TEST(CostModel, PcieUplinkContentionOnPcieOnlyNodes) {
  // 4 GPUs, no NVLink, two per switch: pairs across switches are PXB (24 GB/s here). Two TP
  // groups {0,2} and {1,3} both leave switches 0 and 1: each gets 24/2 GB/s.
  const auto topo = topology::ClusterTopology::replicate(
      make_node({.gpus = 4, .nics = 1, .nic_gbps = 10, .nvl_gbps = 0, .numa = 1, .nvlink = false, .gpus_per_switch = 2}), 1);
  CostParams p = default_cost_params(topo);
  p.nccl_tuning = false;  // the α-β arithmetic
  for (auto& l : p.links) l.alpha_us = 0;
  const Layout l{.world = 4, .tp = 2};
  const std::vector<int> crossing{0, 2, 1, 3};
  const CostModel with(topo, p);
  EXPECT_NEAR(with.op_time_us(with.score(l, flat_rank_groups(l), crossing).of(Dim::tp), Op::all_reduce, 1'200'000), 1.2e6 / 12e3, 1e-6);
  p.contention = false;
  const CostModel without(topo, p);
  EXPECT_NEAR(without.op_time_us(without.score(l, flat_rank_groups(l), crossing).of(Dim::tp), Op::all_reduce, 1'200'000), 1.2e6 / 24e3,
              1e-6);
  // Pairs under one switch (PIX) do not touch the uplink.
  EXPECT_NEAR(with.op_time_us(with.score(l, flat_rank_groups(l), std::vector<int>{0, 1, 2, 3}).of(Dim::tp), Op::all_reduce, 1'200'000),
              1.2e6 / 24e3, 1e-6);
}

TEST(CostModel, ScoreSumsTheWorkloadsOps) {
  const TwoByTwo c(2);
  Workload w;
  w.layers = 2;
  w.hidden = 1024;
  w.seq_len = 1024;
  w.micro_batches = 1;
  w.experts = 0;
  w.top_k = 1;
  const CostModel model(c.topo, c.params, w);
  const auto score = model.score(kTp2, flat_rank_groups(kTp2), std::vector<int>{0, 1, 2, 3});
  double expected = 0;
  for (const auto& t : step_traffic(w, kTp2)) expected += t.calls_per_step * model.op_time_us(score.of(t.dim), t.op, t.bytes);
  EXPECT_GT(score[Dim::tp], 0);
  EXPECT_GT(score[Dim::dp], 0);
  EXPECT_NEAR(score.total_us, expected, 1e-6);
  EXPECT_NEAR(score.total_us, score[Dim::tp] + score[Dim::dp], 1e-6);
}

TEST(CostModel, ParametersAreDataAndOverridable) {
  const TwoByTwo c(2);
  CostParams p = c.params;
  apply_cost_overrides(p, nlohmann::json::parse(R"({"contention": false, "links": {"NET": {"bandwidth_gbps": 5, "alpha_us": 20}}})"),
                       "test");
  EXPECT_FALSE(p.contention);
  EXPECT_DOUBLE_EQ(p[LinkClass::NET].bandwidth_gbps, 5);
  EXPECT_DOUBLE_EQ(p[LinkClass::NET].alpha_us, 20);
  EXPECT_DOUBLE_EQ(p[LinkClass::NVL].bandwidth_gbps, 100);  // untouched
  // Calibrating NET down caps every NIC: TP across nodes at 5 GB/s → 200 us.
  for (auto& l : p.links) l.alpha_us = 0;
  const CostModel model(c.topo, p);
  EXPECT_NEAR(
      model.op_time_us(model.score(kTp2, flat_rank_groups(kTp2), std::vector<int>{0, 2, 1, 3}).of(Dim::tp), Op::all_reduce, 1'000'000),
      200.0, 1e-9);
  // Round trip through JSON.
  CostParams back = c.params;
  apply_cost_overrides(back, to_json(p), "round trip");
  EXPECT_EQ(back, p);
  EXPECT_THROW(apply_cost_overrides(p, nlohmann::json::parse(R"({"links": {"XYZ": {}}})"), "t"), InputError);
  EXPECT_THROW(apply_cost_overrides(p, nlohmann::json::parse(R"({"contention": 1})"), "t"), InputError);
  EXPECT_THROW(apply_cost_overrides(p, nlohmann::json::parse(R"({"links": {"NET": {"bandwidth_gbps": 0}}})"), "t"), InputError);
}

// A 128-slot node (CPU ranks), slots 0-63 on NUMA 0 and 64-127 on NUMA 1, each under its own
// switch: one group of all 128 crosses sockets, so its slowest path is SYS (10 GB/s here).
TEST(CostModel, LargeNodesFindTheSlowestPairAcrossTheWholeGroup) {
  const auto topo = topology::ClusterTopology::replicate(
      make_node({.gpus = 128, .nics = 1, .nic_gbps = 10, .nvl_gbps = 0, .numa = 2, .nvlink = false, .gpus_per_switch = 1}), 1);
  CostParams p = default_cost_params(topo);
  p.nccl_tuning = false;  // the α-β arithmetic
  for (auto& l : p.links) l.alpha_us = 0;
  p[LinkClass::SYS].bandwidth_gbps = 10;
  const CostModel model(topo, p);
  const Layout l{.world = 128, .tp = 128};
  std::vector<int> identity(128);
  std::iota(identity.begin(), identity.end(), 0);
  const auto shape = model.score(l, flat_rank_groups(l), identity).of(Dim::tp);
  EXPECT_EQ(shape.worst_link, LinkClass::SYS);
  // all_gather factor 127/128 over 10 GB/s (one group: no uplink sharing).
  EXPECT_NEAR(model.op_time_us(shape, Op::all_gather, 1'280'000), 1'280'000.0 * 127 / 128 / 1e4, 1e-6);
}

TEST(CostModel, RefusesAWorldOfAnotherSize) {
  const TwoByTwo c(2);
  const CostModel model(c.topo, c.params);
  const Layout l{.world = 8, .tp = 2};
  EXPECT_THROW(model.score(l, flat_rank_groups(l), std::vector<int>(8, 0)), InputError);
}

TEST(CostModel, WithoutNcclTuningGpuGroupsArePricedByTheirProfilesAlone) {
  // 2 × p5, TP8 PP2: the tp groups are collectives on GPUs, the pp pairs send/recv across nodes.
  const auto topo = topology::ClusterTopology::replicate(testing::p5_node(), 2);
  const Layout l{.world = 16, .tp = 8, .pp = 2};
  std::vector<int> identity(16);
  std::iota(identity.begin(), identity.end(), 0);
  const CostModel tuned(topo, default_cost_params(topo));
  const Score with = tuned.score(l, flat_rank_groups(l), identity);
  EXPECT_FALSE(with.of(Dim::tp).gpu_shared.empty());
  EXPECT_FALSE(with.of(Dim::tp).gpu_alone.empty());
  EXPECT_FALSE(with.of(Dim::pp).gpu_pairs.empty());

  CostParams p = default_cost_params(topo);
  p.nccl_tuning = false;
  const CostModel alpha_beta(topo, p);
  const Score without = alpha_beta.score(l, flat_rank_groups(l), identity);
  for (Dim d : kAllDims) {
    EXPECT_TRUE(without.of(d).gpu_shared.empty()) << to_string(d);
    EXPECT_TRUE(without.of(d).gpu_alone.empty()) << to_string(d);
    EXPECT_TRUE(without.of(d).gpu_pairs.empty()) << to_string(d);
  }
  const DimShape& tp = without.of(Dim::tp);
  ASSERT_FALSE(tp.ring.empty());
  for (Op op : {Op::all_reduce, Op::all_gather, Op::all_to_all}) {
    for (bool isolated : {false, true})
      EXPECT_EQ(alpha_beta.op_estimate(tp, op, 1 << 20, isolated).algorithm, "alpha-beta") << to_string(op);
  }
  EXPECT_EQ(alpha_beta.op_estimate(without.of(Dim::pp), Op::send_recv, 1 << 20).algorithm, "alpha-beta");
}

}  // namespace meshbench::mapping
