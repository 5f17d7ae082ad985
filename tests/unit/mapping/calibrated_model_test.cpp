// The cost model with a calibration: which link class and flows a dimension's shape is priced
// by, where the calibration replaces the α-β profiles, and how a calibration travels through
// the cost-model file, the plan file and `plan`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.hpp"
#include "mapping/candidates.hpp"
#include "mapping/commands.hpp"
#include "mapping/cost_model.hpp"
#include "mapping/plan.hpp"
#include "mapping/plan_text.hpp"
#include "synthetic_nodes.hpp"
#include "synthetic_points.hpp"
#include "tests/unit/input_error_text.hpp"
#include "tests/unit/scratch_dir.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {

namespace {

namespace fs = std::filesystem;
using testing::make_node;
using testing::NodeSpec;
using testing::synthetic_points;
using testing::Truth;
using topology::LinkClass;

std::string scratch_path(const std::string& name) {
  const auto dir = test_support::temp_dir("mapping_calibrated_model_test");
  const auto p = dir / name;
  fs::remove_all(p);
  return p.string();
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

using test_support::error_of;

// A calibration of `topo` from exact synthetic points of these truths.
Calibration calibration_for(const topology::ClusterTopology& topo, const std::vector<Truth>& truths, double nic_gamma = 1.0) {
  auto points = synthetic_points(truths, {.noise = 0});
  std::vector<Truth> shared;
  for (auto t : truths) {
    if (t.link != LinkClass::NET) continue;
    t.gamma = nic_gamma;
    shared.push_back(t);
  }
  const auto concurrent = synthetic_points(shared, {.sizes = testing::doubling_sizes(1 << 20), .flows = {2, 4}, .noise = 0});
  points.insert(points.end(), concurrent.begin(), concurrent.end());
  Calibration c = fit_calibration(points);
  c.topology_digest = calibration_digest(topo);
  c.topology_summary = calibration_summary(topo);
  c.sources = {"synthetic.h5"};
  c.created_at = "2026-12-01T15:00:00Z";
  return c;
}

// Every op of every family on `link`, one line each.
std::vector<Truth> all_families(LinkClass link, double alpha_us, double gbps) {
  std::vector<Truth> out;
  for (auto op : {ops::Op::all_reduce, ops::Op::all_gather, ops::Op::all_to_all, ops::Op::send_recv})
    out.push_back({.link = link, .op = op, .alpha_us = alpha_us, .gbps = gbps});
  return out;
}

// 4 GPUs without NVLink, two per PCIe switch, one node: pairs across switches are PXB.
topology::ClusterTopology pcie_node() {
  return topology::ClusterTopology::replicate(
      make_node({.gpus = 4, .nics = 1, .nic_gbps = 10, .nvl_gbps = 0, .numa = 1, .nvlink = false, .gpus_per_switch = 2}), 1);
}

// Two nodes of two NVLinked GPUs and one 10 GB/s NIC each.
topology::ClusterTopology two_nodes_of_two_gpus() {
  return topology::ClusterTopology::replicate(
      make_node({.gpus = 2, .nics = 1, .nic_gbps = 10, .nvl_gbps = 100, .numa = 1, .nvlink = true, .gpus_per_switch = 2}), 2);
}

const Layout kTp2OfFour{.world = 4, .tp = 2};

}  // namespace

TEST(CalibratedModel, UplinkFlowsAreTheSharingThePricingCounts) {
  const auto topo = pcie_node();
  const CostModel model(topo, default_cost_params(topo));
  // {0,2} and {1,3} both leave switches 0 and 1: two flows on each uplink.
  const auto crossing = model.score(kTp2OfFour, flat_rank_groups(kTp2OfFour), std::vector<int>{0, 2, 1, 3}).of(Dim::tp);
  EXPECT_EQ(crossing.worst_link, LinkClass::PXB);
  EXPECT_EQ(crossing.max_uplink_flows, 2);
  EXPECT_EQ(calibration_link(crossing), LinkClass::PXB);
  EXPECT_EQ(calibration_flows(crossing, false), 2);
  EXPECT_EQ(calibration_flows(crossing, true), 1);
  // Pairs under one switch stay off the uplink.
  const auto under = model.score(kTp2OfFour, flat_rank_groups(kTp2OfFour), std::vector<int>{0, 1, 2, 3}).of(Dim::tp);
  EXPECT_EQ(under.worst_link, LinkClass::PIX);
  EXPECT_EQ(under.max_uplink_flows, 0);
  EXPECT_EQ(calibration_flows(under, false), 1);
}

TEST(CalibratedModel, NicFlowsAcrossNodesAndNoneInsideANode) {
  const auto topo = two_nodes_of_two_gpus();
  const CostModel model(topo, default_cost_params(topo));
  // TP pairs {0,2} and {1,3} across the nodes: two flows through each node's one NIC.
  const auto across = model.score(kTp2OfFour, flat_rank_groups(kTp2OfFour), std::vector<int>{0, 2, 1, 3}).of(Dim::tp);
  EXPECT_EQ(calibration_link(across), LinkClass::NET);
  EXPECT_EQ(calibration_flows(across, false), 2);
  EXPECT_EQ(calibration_flows(across, true), 1);
  const auto inside = model.score(kTp2OfFour, flat_rank_groups(kTp2OfFour), std::vector<int>{0, 1, 2, 3}).of(Dim::tp);
  EXPECT_EQ(calibration_link(inside), LinkClass::NVL);
  EXPECT_EQ(calibration_flows(inside, false), 1);
}

// Nodes a and b with two GPUs and a 10 GB/s NIC, c with one GPU and a 4 GB/s NIC, d with one
// GPU and a 10 GB/s NIC: one slow node, as on a cluster with a degraded NIC.
topology::ClusterTopology one_slow_nic() {
  const NodeSpec two{.gpus = 2, .nics = 1, .nic_gbps = 10, .nvl_gbps = 100, .numa = 1, .nvlink = true, .gpus_per_switch = 2};
  NodeSpec one = two;
  one.gpus = 1;
  NodeSpec slow = one;
  slow.nic_gbps = 4;
  return topology::ClusterTopology::from_nodes({make_node(two, "a"), make_node(two, "b"), make_node(slow, "c"), make_node(one, "d")});
}

TEST(CalibratedModel, TheSharedLineIsTheNicThatGivesOneFlowTheLeast) {
  const auto topo = one_slow_nic();
  const CostModel model(topo, default_cost_params(topo));
  const Layout tp2{.world = 6, .tp = 2};
  // TP pairs {a0,b0}, {a1,c0}, {b1,d0}: two flows on a's and b's NICs (5 GB/s each), one on c's
  // (4 GB/s): c's NIC sets the time though a and b carry more flows.
  const auto slow = model.score(tp2, flat_rank_groups(tp2), std::vector<int>{0, 2, 1, 4, 3, 5}).of(Dim::tp);
  EXPECT_EQ(slow.max_nic_flows, 2);
  EXPECT_DOUBLE_EQ(calibration_line_gbps(slow, true), 4);
  EXPECT_DOUBLE_EQ(calibration_line_gbps(slow, false), 4);
  EXPECT_EQ(calibration_flows(slow, false), 1);
  // Pairs {a0,b0}, {a1,b1}, {c0,d0}: c's one flow gets 4 GB/s, a's and b's two get 5 each.
  const auto fast = model.score(tp2, flat_rank_groups(tp2), std::vector<int>{0, 2, 1, 3, 4, 5}).of(Dim::tp);
  EXPECT_DOUBLE_EQ(calibration_line_gbps(fast, true), 4);
  EXPECT_EQ(calibration_flows(fast, false), 1);
  // c at 5 GB/s with one flow against a's and b's two on 10: a tie under a fair share, where the
  // fewer flows win; with a calibration's k^0.5 c's NIC is the bottleneck outright.
  const auto tied_topo =
      topology::ClusterTopology::from_nodes({make_node({.gpus = 2, .nics = 1, .nic_gbps = 10, .nvl_gbps = 100, .numa = 1}, "a"),
                                             make_node({.gpus = 2, .nics = 1, .nic_gbps = 10, .nvl_gbps = 100, .numa = 1}, "b"),
                                             make_node({.gpus = 1, .nics = 1, .nic_gbps = 5, .nvl_gbps = 100, .numa = 1}, "c"),
                                             make_node({.gpus = 1, .nics = 1, .nic_gbps = 10, .nvl_gbps = 100, .numa = 1}, "d")});
  const CostModel tied(tied_topo, default_cost_params(tied_topo));
  const auto tie = tied.score(tp2, flat_rank_groups(tp2), std::vector<int>{0, 2, 1, 4, 3, 5}).of(Dim::tp);
  EXPECT_DOUBLE_EQ(calibration_line_gbps(tie, false), 5);
  EXPECT_EQ(calibration_flows(tie, false), 1);
  // A γ of 2 (sharing worse than fair) moves the bottleneck to a's two flows: 10 / 2² < 5.
  CostParams steep = default_cost_params(tied_topo);
  Calibration cal;
  cal.sharing.nic_exponent = 2.0;
  steep.calibration = cal;
  const CostModel steep_model(tied_topo, steep);
  const auto steep_tie = steep_model.score(tp2, flat_rank_groups(tp2), std::vector<int>{0, 2, 1, 4, 3, 5}).of(Dim::tp);
  EXPECT_DOUBLE_EQ(calibration_line_gbps(steep_tie, false), 10);
  EXPECT_EQ(calibration_flows(steep_tie, false), 2);
  // Identical NICs: the shared line is the NIC with the most flows, as max_nic_flows says.
  const Layout tp2_of_four{.world = 4, .tp = 2};
  const auto healthy_topo =
      topology::ClusterTopology::from_nodes({make_node({.gpus = 2, .nics = 1, .nic_gbps = 10, .nvl_gbps = 100, .numa = 1}, "a"),
                                             make_node({.gpus = 2, .nics = 1, .nic_gbps = 10, .nvl_gbps = 100, .numa = 1}, "b")});
  const CostModel healthy(healthy_topo, default_cost_params(healthy_topo));
  const auto across = healthy.score(tp2_of_four, flat_rank_groups(tp2_of_four), std::vector<int>{0, 2, 1, 3}).of(Dim::tp);
  EXPECT_DOUBLE_EQ(calibration_line_gbps(across, false), 10);
  EXPECT_EQ(calibration_flows(across, false), 2);
  // Inside a node the line is the in-node link's.
  const auto inside = healthy.score(tp2_of_four, flat_rank_groups(tp2_of_four), std::vector<int>{0, 1, 2, 3}).of(Dim::tp);
  EXPECT_DOUBLE_EQ(calibration_line_gbps(inside, true), 100);
}

TEST(CalibratedModel, ACalibratedNicOfAnotherLineRateIsPricedAtItsRate) {
  const auto topo = one_slow_nic();
  // A calibration fitted on 10 GB/s NICs (its points name the line): 20 µs, 8 GB/s.
  auto points = synthetic_points(all_families(LinkClass::NET, 20, 8), {.noise = 0});
  for (auto& p : points) p.line_gbps = 10;
  CostParams params = default_cost_params(topo);
  params.nccl_tuning = false;
  params.calibration = fit_calibration(points);
  ASSERT_DOUBLE_EQ(params.calibration->links.front().line_gbps, 10);
  const CostModel model(topo, params);
  const Layout tp2{.world = 6, .tp = 2};
  const auto slow = model.score(tp2, flat_rank_groups(tp2), std::vector<int>{0, 2, 1, 4, 3, 5}).of(Dim::tp);
  const std::uint64_t bytes = 8 << 20;
  // c's NIC at 4 GB/s: 8 GB/s × 4/10 = 3.2 GB/s, alone and with its one flow.
  EXPECT_NEAR(model.op_time_us(slow, ops::Op::all_reduce, bytes), 2 * 20 + 8388608.0 / 3.2e3, 1e-6 * 2661);
  EXPECT_NEAR(model.op_time_us(slow, ops::Op::all_reduce, bytes, true), 2 * 20 + 8388608.0 / 3.2e3, 1e-6 * 2661);
}

TEST(CalibratedModel, OpTimeIsTheCalibratedTimeWhereTheCalibrationFits) {
  const auto topo = two_nodes_of_two_gpus();
  // NET fitted for every family at 20 µs, 2 GB/s with sharing k^0.5; NVL left to the α-β model.
  const Calibration cal = calibration_for(topo, all_families(LinkClass::NET, 20, 2), 0.5);
  ASSERT_TRUE(cal.sharing.nic_exponent);
  EXPECT_NEAR(*cal.sharing.nic_exponent, 0.5, 1e-3);
  CostParams params = default_cost_params(topo);
  params.nccl_tuning = false;  // beside the calibration, the α-β profiles
  const CostModel plain(topo, params);
  params.calibration = cal;
  const CostModel calibrated(topo, params);
  const auto groups = flat_rank_groups(kTp2OfFour);
  const auto across = calibrated.score(kTp2OfFour, groups, std::vector<int>{0, 2, 1, 3}).of(Dim::tp);
  const std::uint64_t bytes = 8 << 20;
  for (auto op : {ops::Op::all_reduce, ops::Op::all_gather, ops::Op::reduce_scatter, ops::Op::all_to_all, ops::Op::send_recv}) {
    EXPECT_DOUBLE_EQ(calibrated.op_time_us(across, op, bytes), *calibrated_time_us(cal, LinkClass::NET, op, 2, bytes, 2));
    EXPECT_DOUBLE_EQ(calibrated.op_time_us(across, op, bytes, true), *calibrated_time_us(cal, LinkClass::NET, op, 2, bytes, 1));
  }
  // By hand: all-reduce of 2 ranks, 2 steps of 20 µs, 8 MiB at 2 GB/s shared by 2 flows as 2^0.5.
  EXPECT_NEAR(calibrated.op_time_us(across, ops::Op::all_reduce, bytes), 40 + 8388608.0 / 2e3 * std::sqrt(2.0), 1e-3);
  // all_to_allv keeps the routing skew's imbalance: the busiest rank's bytes (Zipf 1 over 2
  // ranks: 2 / 1.5 of the mean).
  params.a2av_skew = 1.0;
  const CostModel skewed(topo, params);
  EXPECT_DOUBLE_EQ(skewed.op_time_us(across, ops::Op::all_to_allv, bytes),
                   *calibrated_time_us(cal, LinkClass::NET, ops::Op::all_to_all, 2, static_cast<std::uint64_t>(bytes * (2.0 / 1.5)), 2));
  // Inside a node (NVL, not calibrated) the α-β profiles price, as without a calibration.
  const auto inside_cal = calibrated.score(kTp2OfFour, groups, std::vector<int>{0, 1, 2, 3}).of(Dim::tp);
  const auto inside_plain = plain.score(kTp2OfFour, groups, std::vector<int>{0, 1, 2, 3}).of(Dim::tp);
  EXPECT_DOUBLE_EQ(calibrated.op_time_us(inside_cal, ops::Op::all_reduce, bytes),
                   plain.op_time_us(inside_plain, ops::Op::all_reduce, bytes));
  // Without a calibration, `isolated` changes nothing: the profiles hold the sharing.
  const auto across_plain = plain.score(kTp2OfFour, groups, std::vector<int>{0, 2, 1, 3}).of(Dim::tp);
  EXPECT_DOUBLE_EQ(plain.op_time_us(across_plain, ops::Op::all_reduce, bytes, true),
                   plain.op_time_us(across_plain, ops::Op::all_reduce, bytes));
  // Without contention every group runs alone in the calibrated model too.
  params.contention = false;
  const CostModel alone(topo, params);
  const auto across_alone = alone.score(kTp2OfFour, groups, std::vector<int>{0, 2, 1, 3}).of(Dim::tp);
  EXPECT_DOUBLE_EQ(alone.op_time_us(across_alone, ops::Op::all_reduce, bytes),
                   *calibrated_time_us(cal, LinkClass::NET, ops::Op::all_reduce, 2, bytes, 1));
  // The score adds up the calibrated op times.
  const Score s = calibrated.score(kTp2OfFour, groups, std::vector<int>{0, 2, 1, 3});
  double sum = 0;
  for (const auto& t : calibrated.traffic(kTp2OfFour)) sum += t.calls_per_step * calibrated.op_time_us(s.of(t.dim), t.op, t.bytes);
  EXPECT_DOUBLE_EQ(s.total_us, sum);
}

TEST(CalibratedModel, CostModelFileTakesACalibrationAndPlansCarryIt) {
  const auto topo = two_nodes_of_two_gpus();
  const Calibration cal = calibration_for(topo, all_families(LinkClass::NET, 20, 2));
  const auto path = scratch_path("cal.json");
  write(path, to_json(cal).dump(2));
  const CostParams base = default_cost_params(topo);
  const CostParams p = load_cost_params(path, base);
  ASSERT_TRUE(p.calibration);
  EXPECT_EQ(*p.calibration, cal);
  EXPECT_EQ(p.links, base.links) << "a calibration file keeps the α-β parameters for what it does not fit";
  // to_json(CostParams) and the overrides reader carry it, as the plan file does.
  CostParams back;
  apply_cost_overrides(back, to_json(p), "'plan.json'");
  EXPECT_EQ(back, p);
  apply_cost_overrides(back, nlohmann::json::parse(R"({"calibration": null})"), "'x.json'");
  EXPECT_FALSE(back.calibration);
  // Override files work as before.
  const auto overrides = scratch_path("overrides.json");
  write(overrides, R"({"links": {"NET": {"alpha_us": 12, "bandwidth_gbps": 1.5}}})");
  const CostParams o = load_cost_params(overrides, base);
  EXPECT_FALSE(o.calibration);
  EXPECT_DOUBLE_EQ(o[LinkClass::NET].bandwidth_gbps, 1.5);
  // A malformed calibration file names the file and the key.
  write(path, R"({"calibration_version": 1, "links": 3})");
  const std::string e = error_of([&] { load_cost_params(path, base); });
  EXPECT_NE(e.find("calibration '" + path + "'"), std::string::npos) << e;

  const CostModel model(topo, p);
  const Plan plan = make_plan(kTp2OfFour, model, topo, generate_candidates(kTp2OfFour, topo, model, {.with_groups = false}));
  const auto plan_path = scratch_path("plan.json");
  write_plan(plan, plan_path, false);
  const Plan read = load_plan(plan_path);
  EXPECT_EQ(read.cost_model, plan.cost_model);
  EXPECT_NE(
      plan_text(read, 3).find("model: calibrated (4 link/op fits from synthetic.h5, 2026-12-01T15:00:00Z, measured on 2 nodes x 2 slots"),
      std::string::npos)
      << plan_text(read, 3);
}

// The issue's must-show: p5 × 4 (8 NVLinked GPUs, 32 × 12.5 GB/s NICs per node), TP8 EP8 ETP1
// (DP4, EDP4) with a small MoE whose expert all-to-all is 256 calls of 512 KiB per step and whose
// expert-gradient all-reduce (EDP) is one of 192 MiB. TP8 fills a node either way; the choice is
// which of EP and EDP crosses the network.
//   - Calibrated like the defaults (NET 8 µs, 50 GB/s per rank — one GPU's four NICs; NVL 1 µs,
//     370 GB/s): EP stays on NVLink and EDP crosses (6 ms for 192 MiB on the network, where 256
//     all-to-alls there would cost 17 ms).
//   - The same file with the network's bandwidth ten times lower (5 GB/s), its latency unchanged:
//     EDP's bulk bytes on the network would cost 60 ms; the all-to-alls' 128 MiB cost 10× more
//     too but their latency (256 × 7 steps × 8 µs) does not grow, so they go to the network
//     (38 ms) and the expert gradients move to NVLink: the winner puts EP across nodes.
// Both terms ten times larger (80 µs, 5 GB/s) leave the first winner: every dimension on the
// network then gets ten times dearer alike, and no trade between them changes.
TEST(CalibratedModel, ATenTimesSlowerNetworkChangesTheP5WinnerAsThePhysicsSays) {
  const auto topo = topology::ClusterTopology::replicate(testing::p5_node(), 4);
  const Layout layout{.world = 32, .tp = 8, .cp = 1, .pp = 1, .ep = 8, .etp = 1};
  Workload w;
  w.layers = 8;
  w.hidden = 1024;
  w.ffn_hidden = 2048;
  w.kv_hidden = 256;
  w.seq_len = 1024;
  const auto calibrated = [&](double net_gbps, double net_alpha_us = 8) {
    auto truths = all_families(LinkClass::NET, net_alpha_us, net_gbps);
    const auto nvl = all_families(LinkClass::NVL, 1, 370);
    truths.insert(truths.end(), nvl.begin(), nvl.end());
    const auto path = scratch_path("p5-net-" + std::to_string(static_cast<int>(net_gbps)) + "-" +
                                   std::to_string(static_cast<int>(net_alpha_us)) + ".json");
    write(path, to_json(calibration_for(topo, truths)).dump(2));
    return CostModel(topo, load_cost_params(path, default_cost_params(topo)), w);
  };
  const CostModel fast = calibrated(50), slow = calibrated(5);
  const auto fast_best = generate_candidates(layout, topo, fast).ranked.front();
  const auto slow_best = generate_candidates(layout, topo, slow).ranked.front();
  for (const auto* best : {&fast_best, &slow_best}) EXPECT_FALSE(best->score.of(Dim::tp).crosses_nodes) << best->mapping.name;
  EXPECT_FALSE(fast_best.score.of(Dim::ep).crosses_nodes) << fast_best.mapping.name;
  EXPECT_TRUE(fast_best.score.of(Dim::edp).crosses_nodes) << fast_best.mapping.name;
  EXPECT_TRUE(slow_best.score.of(Dim::ep).crosses_nodes) << slow_best.mapping.name;
  EXPECT_FALSE(slow_best.score.of(Dim::edp).crosses_nodes) << slow_best.mapping.name;
  // Each winner is clearly better under its own file, not a tie broken by order.
  const auto rescored = [](const CostModel& m, const Candidate& c) {
    return m.score(c.mapping.layout, flat_rank_groups(c.mapping.layout), c.mapping.slot_of_rank);
  };
  EXPECT_GT(rescored(fast, slow_best).total_us, 1.2 * fast_best.score.total_us);
  EXPECT_GT(rescored(slow, fast_best).total_us, 1.2 * slow_best.score.total_us);
  // Why: on the slow network EDP's all-reduce costs more than EP's all-to-alls do there.
  EXPECT_GT(rescored(slow, fast_best)[Dim::edp], slow_best.score[Dim::ep]);
  EXPECT_LT(fast_best.score[Dim::edp], rescored(fast, slow_best)[Dim::ep]);
  const CostModel uniformly_slow = calibrated(5, 80);
  const auto uniform_best = generate_candidates(layout, topo, uniformly_slow).ranked.front();
  EXPECT_FALSE(uniform_best.score.of(Dim::ep).crosses_nodes) << uniform_best.mapping.name;
  EXPECT_TRUE(uniform_best.score.of(Dim::edp).crosses_nodes) << uniform_best.mapping.name;
}

TEST(CalibratedModel, PlanChecksTheCalibrationsTopology) {
  const auto p5x4 = topology::load_offline_topology({.file = "", .node_type = "p5.48xlarge", .nodes = 4}, false);
  const auto p5x2 = topology::load_offline_topology({.file = "", .node_type = "p5.48xlarge", .nodes = 2}, false);
  const auto path = scratch_path("p5x2.json");
  write(path, to_json(calibration_for(p5x2, all_families(LinkClass::NET, 20, 2))).dump());
  const Args args{"--node-type", "p5.48xlarge", "--nodes", "4", "--tp", "8", "--cost-model", path};
  const std::string e = error_of([&] { plan_command(args); });
  EXPECT_NE(e.find("was measured on 2 nodes x 8 slots"), std::string::npos) << e;
  EXPECT_NE(e.find("re-run meshbench calibrate on this allocation"), std::string::npos) << e;
  write(path, to_json(calibration_for(p5x4, all_families(LinkClass::NET, 20, 2))).dump());
  std::ostringstream out;
  auto* old = std::cout.rdbuf(out.rdbuf());
  const int rc = plan_command(args);
  std::cout.rdbuf(old);
  EXPECT_EQ(rc, 0);
  EXPECT_NE(out.str().find("model: calibrated"), std::string::npos) << out.str();
}

}  // namespace meshbench::mapping
