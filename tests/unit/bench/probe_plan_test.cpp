// The probe's choice of slot pairs on several topologies: which link classes, how many flows
// through one NIC or PCIe switch uplink, and that the layouts' groups are those pairs.
#include "bench/calibration/probe_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "mapping/cost_model.hpp"
#include "mapping/cost_params.hpp"
#include "topology/options.hpp"

namespace meshbench::bench {
namespace {

using topology::LinkClass;

// `slots` CPU slots on one NUMA node (PHB between them, as live discovery describes them) and
// `nics` NICs every slot reaches.
topology::NodeTopology cpu_node(const std::string& host, int slots, int nics) {
  topology::NodeTopology n;
  n.hostname = host;
  n.source = "test";
  for (int s = 0; s < slots; ++s) n.slots.push_back({s, topology::SlotKind::cpu, "", 0, "cpu", -1});
  for (int i = 0; i < nics; ++i) n.nics.push_back({"eth" + std::to_string(i), topology::NicKind::eth, "", 0, 0.125, -1});
  const auto count = static_cast<std::size_t>(slots);
  n.links.assign(count * count, LinkClass::PHB);
  n.bandwidth_gbps.assign(count * count, 10);
  for (std::size_t s = 0; s < count; ++s) {
    n.links[s * count + s] = LinkClass::LOC;
    n.rails.emplace_back();
    for (int i = 0; i < nics; ++i) n.rails.back().push_back(i);
  }
  return n;
}

// 8 GPUs without NVLink, 4 under each of two PCIe switches (PIX under one, PXB between them), one
// NIC per switch reached by its GPUs.
topology::NodeTopology pcie_switch_node(const std::string& host) {
  topology::NodeTopology n;
  n.hostname = host;
  n.source = "test";
  for (int s = 0; s < 8; ++s) n.slots.push_back({s, topology::SlotKind::gpu, "", 0, "gpu", s / 4});
  for (int i = 0; i < 2; ++i) n.nics.push_back({"nic" + std::to_string(i), topology::NicKind::efa, "", 0, 12.5, i});
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      n.links.push_back(a == b ? LinkClass::LOC : a / 4 == b / 4 ? LinkClass::PIX : LinkClass::PXB);
      n.bandwidth_gbps.push_back(24);
    }
    n.rails.push_back({a / 4});
  }
  return n;
}

topology::ClusterTopology catalog(const std::string& type, int nodes) {
  topology::TopologyOptions options;
  options.node_type = type;
  options.nodes = nodes;
  return topology::load_offline_topology(options, true);
}

std::map<std::string, ProbeTarget> targets(const std::vector<PairArrangement>& arrangements) {
  std::map<std::string, ProbeTarget> out;
  for (const auto& a : arrangements) out[a.name] = a.target;
  return out;
}

// Every arrangement pairs every slot exactly once.
void expect_partitions(const topology::ClusterTopology& t, const std::vector<PairArrangement>& arrangements) {
  for (const auto& a : arrangements) {
    std::vector<int> seen;
    for (const auto& [x, y] : a.pairs) {
      seen.push_back(x);
      seen.push_back(y);
    }
    std::sort(seen.begin(), seen.end());
    ASSERT_EQ(static_cast<int>(seen.size()), t.slot_count()) << a.name;
    for (int s = 0; s < t.slot_count(); ++s) EXPECT_EQ(seen[static_cast<std::size_t>(s)], s) << a.name;
  }
}

TEST(ProbePlan, OneNodeOfCpuSlotsHasOnlyItsIntraNodeClass) {
  const auto t = topology::ClusterTopology::replicate(cpu_node("h", 4, 1), 1);
  const auto a = probe_arrangements(t);
  expect_partitions(t, a);
  EXPECT_EQ(targets(a), (std::map<std::string, ProbeTarget>{{"probe:PHB", {LinkClass::PHB, 0, 0}}}));
  EXPECT_FALSE(nics_are_shared(t));
}

TEST(ProbePlan, TwoEmulatedNodesOfTwoSlotsPairInsideAndAcrossThroughTheOneNic) {
  const auto t = topology::ClusterTopology::from_nodes({cpu_node("a", 2, 1), cpu_node("b", 2, 1)});
  const auto a = probe_arrangements(t);
  expect_partitions(t, a);
  // One flow through a NIC only comes from the isolated points: two slots cannot send one pair
  // across and pair the other inside. Every slot across is the two-flow arrangement (listed once).
  EXPECT_EQ(targets(a),
            (std::map<std::string, ProbeTarget>{{"probe:PHB", {LinkClass::PHB, 0, 0}}, {"probe:NET-nic2", {LinkClass::NET, 2, 0}}}));
  const auto& net = *std::find_if(a.begin(), a.end(), [](const auto& x) { return x.name == "probe:NET-nic2"; });
  EXPECT_EQ(net.pairs, (SlotPairs{{0, 2}, {1, 3}}));
  EXPECT_TRUE(nics_are_shared(t));
}

TEST(ProbePlan, P4dSharesEachNicBetweenTwoGpus) {
  const auto t = catalog("p4d.24xlarge", 2);
  const auto a = probe_arrangements(t);
  expect_partitions(t, a);
  EXPECT_EQ(targets(a), (std::map<std::string, ProbeTarget>{{"probe:NVL", {LinkClass::NVL, 0, 0}},
                                                            {"probe:NET-nic1", {LinkClass::NET, 1, 0}},
                                                            {"probe:NET-nic2", {LinkClass::NET, 2, 0}},
                                                            {"probe:NET-all", {LinkClass::NET, 2, 0}}}));
  EXPECT_TRUE(nics_are_shared(t));
}

TEST(ProbePlan, P5HasANicOfItsOwnPerGpu) {
  const auto t = catalog("p5.48xlarge", 4);
  const auto a = probe_arrangements(t);
  expect_partitions(t, a);
  EXPECT_EQ(targets(a), (std::map<std::string, ProbeTarget>{{"probe:NVL", {LinkClass::NVL, 0, 0}},
                                                            {"probe:NET-nic1", {LinkClass::NET, 1, 0}},
                                                            {"probe:NET-all", {LinkClass::NET, 1, 0}}}));
  EXPECT_FALSE(nics_are_shared(t));
  // Four nodes pair as (0, 1) and (2, 3): no pair spans more than its node pair.
  for (const auto& x : a) {
    for (const auto& [s, r] : x.pairs) EXPECT_EQ(t.node_of(s) / 2, t.node_of(r) / 2) << x.name;
  }
}

TEST(ProbePlan, PcieSwitchesGiveUplinkSharingCounts) {
  const auto t = topology::ClusterTopology::from_nodes({pcie_switch_node("a"), pcie_switch_node("b")});
  const auto a = probe_arrangements(t);
  expect_partitions(t, a);
  // Four GPUs per switch: all four PXB pairs leave it (4 flows), or two do while the others pair
  // under their switch (2 flows); one alone cannot (the three left under the switch would send
  // one more out). One pair across nodes leaves three GPUs under each switch, so one PXB pair
  // crosses an uplink beside it (a flow there, nothing on the NIC).
  EXPECT_EQ(targets(a), (std::map<std::string, ProbeTarget>{{"probe:PIX", {LinkClass::PIX, 0, 0}},
                                                            {"probe:PXB", {LinkClass::PXB, 0, 4}},
                                                            {"probe:PXB-uplink2", {LinkClass::PXB, 0, 2}},
                                                            {"probe:NET-nic1", {LinkClass::NET, 1, 1}},
                                                            {"probe:NET-nic2", {LinkClass::NET, 2, 0}},
                                                            {"probe:NET-nic4", {LinkClass::NET, 4, 0}},
                                                            {"probe:NET-all", {LinkClass::NET, 4, 0}}}));
}

TEST(ProbePlan, OddSlotCountsHaveNoProbe) {
  const auto t = topology::ClusterTopology::replicate(cpu_node("h", 3, 1), 1);
  EXPECT_TRUE(probe_arrangements(t).empty());
  EXPECT_TRUE(plan_probes(t).empty());
}

// The layouts measure each arrangement's pairs: TP and EP groups (collectives) and PP groups
// (send/recv) are exactly those pairs, on every topology.
TEST(ProbePlan, LayoutsMeasureThePairs) {
  for (const auto& t : {topology::ClusterTopology::from_nodes({cpu_node("a", 2, 1), cpu_node("b", 2, 1)}), catalog("p4d.24xlarge", 2),
                        topology::ClusterTopology::replicate(cpu_node("h", 4, 1), 1)}) {
    const auto arrangements = probe_arrangements(t);
    const auto probes = plan_probes(t);
    ASSERT_EQ(probes.size(), 2U);
    EXPECT_EQ(probes[0].name, "collectives");
    EXPECT_EQ(probes[0].dims, (std::vector<mapping::Dim>{mapping::Dim::tp, mapping::Dim::ep}));
    EXPECT_EQ(probes[0].ops, (std::vector<mapping::Op>{mapping::Op::all_reduce, mapping::Op::all_gather, mapping::Op::reduce_scatter,
                                                       mapping::Op::all_to_all}));
    EXPECT_EQ(probes[1].name, "p2p");
    EXPECT_EQ(probes[1].ops, (std::vector<mapping::Op>{mapping::Op::send_recv}));
    for (const auto& probe : probes) {
      ASSERT_EQ(probe.mappings.size(), arrangements.size());
      for (std::size_t i = 0; i < arrangements.size(); ++i) {
        const auto& m = probe.mappings[i].mapping;
        EXPECT_EQ(m.name, arrangements[i].name);
        EXPECT_EQ(probe.mappings[i].target, arrangements[i].target);
        std::set<std::pair<int, int>> want;
        for (auto [x, y] : arrangements[i].pairs) want.emplace(std::min(x, y), std::max(x, y));
        for (auto dim : probe.dims) {
          std::set<std::pair<int, int>> got;
          for (const auto& g : m.slot_groups(dim)) {
            ASSERT_EQ(g.size(), 2U);
            got.emplace(std::min(g[0], g[1]), std::max(g[0], g[1]));
          }
          EXPECT_EQ(got, want) << m.name << " " << mapping::to_string(dim);
        }
      }
    }
  }
}

TEST(ProbePlan, IsAPureFunctionOfTheTopology) {
  const auto t = catalog("p4d.24xlarge", 2);
  const auto a = probe_arrangements(t), b = probe_arrangements(t);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].pairs, b[i].pairs);
  }
}

TEST(ProbePlan, SizesEndAtTheLargest) {
  EXPECT_EQ(probe_sizes(8, 64ULL << 20, 8).back(), 64ULL << 20);
  EXPECT_EQ(probe_sizes(8, 64ULL << 20, 8).front(), 8U);
  EXPECT_EQ(probe_sizes(8, 64ULL << 20, 8).size(), 9U);  // 8 … 16 MiB by 8, then 64 MiB
  EXPECT_EQ(probe_sizes(1024, 4096, 2), (std::vector<std::uint64_t>{1024, 2048, 4096}));
}

}  // namespace
}  // namespace meshbench::bench

namespace meshbench::bench {
namespace {

// The probe's points as the fit reads them: for every probe mapping, the cost model's
// calibration_link / calibration_flows of its measured dimensions are the arrangement's target,
// so each point lands where the probe meant it to.
// Send/recv inside a node is priced without uplink sharing (the model counts switch users for
// the collectives only), so its points read as one flow there.
int wanted_flows(const ProbeTarget& t, mapping::Dim dim) {
  if (t.link == LinkClass::NET) return t.nic_flows;
  return dim == mapping::Dim::pp ? 1 : std::max(t.uplink_flows, 1);
}

void expect_model_agrees(const topology::ClusterTopology& t) {
  const mapping::CostModel model(t, mapping::default_cost_params(t));
  const auto probes = plan_probes(t);
  ASSERT_FALSE(probes.empty());
  for (const auto& probe : probes) {
    const auto groups = mapping::flat_rank_groups(probe.layout);
    for (const auto& pm : probe.mappings) {
      const auto score = model.score(probe.layout, groups, pm.mapping.slot_of_rank);
      for (auto dim : probe.dims) {
        const auto& shape = score.of(dim);
        const std::string where = pm.mapping.name + " " + std::string(mapping::to_string(dim));
        EXPECT_EQ(mapping::calibration_link(shape), pm.target.link) << where;
        EXPECT_EQ(mapping::calibration_flows(shape, false), wanted_flows(pm.target, dim)) << where;
        EXPECT_EQ(mapping::calibration_flows(shape, true), 1) << where;
      }
    }
  }
}

TEST(ProbeModel, PointsLandWhereTheProbeMeantThem) {
  expect_model_agrees(topology::ClusterTopology::from_nodes({cpu_node("a", 2, 1), cpu_node("b", 2, 1)}));
  expect_model_agrees(topology::ClusterTopology::replicate(cpu_node("h", 4, 1), 1));
  expect_model_agrees(topology::ClusterTopology::from_nodes({pcie_switch_node("a"), pcie_switch_node("b")}));
  expect_model_agrees(catalog("p4d.24xlarge", 2));
  expect_model_agrees(catalog("p5.48xlarge", 4));
  expect_model_agrees(catalog("g5.48xlarge", 2));
}

}  // namespace
}  // namespace meshbench::bench
