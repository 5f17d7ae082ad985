// Clusters: N copies of a node description, and heterogeneous live-style assemblies.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "topology/cluster.hpp"
#include "topology_test_data.hpp"

namespace meshbench::topology {
namespace {

NodeTopology catalog_node(const char* name) { return build_gpu_node(machine_from_node_type(find_node_type(name))); }

TEST(Cluster, ReplicateNumbersSlotsNodeMajorAndLinksNodesByNet) {
  const ClusterTopology c = ClusterTopology::replicate(catalog_node("p5.48xlarge"), 64);
  EXPECT_EQ(c.node_count(), 64);
  EXPECT_EQ(c.slot_count(), 512);
  EXPECT_TRUE(c.homogeneous());
  EXPECT_EQ(c.layout_count(), 1);
  EXPECT_EQ(c.node_of(0), 0);
  EXPECT_EQ(c.node_of(8), 1);
  EXPECT_EQ(c.node_of(511), 63);
  EXPECT_EQ(c.local_index(13), 5);
  EXPECT_EQ(c.first_slot_of(3), 24);
  EXPECT_EQ(c.hostname(2), "p5.48xlarge-2");
  EXPECT_EQ(c.link(8, 8), LinkClass::LOC);
  EXPECT_EQ(c.link(8, 15), LinkClass::NVL);
  EXPECT_EQ(c.link(7, 8), LinkClass::NET);
  EXPECT_DOUBLE_EQ(c.bandwidth_gbps(0, 8), 50.0);  // 4 x 100 Gb/s EFA on each slot's rail
  EXPECT_NEAR(c.bandwidth_gbps(8, 9), 370.8, 1e-9);
  EXPECT_TRUE(c.differences().empty());
}

TEST(Cluster, ReplicateRejectsZeroNodes) { EXPECT_THROW(ClusterTopology::replicate(catalog_node("p4d.24xlarge"), 0), InputError); }

TEST(Cluster, FromNodesSharesEqualLayoutsAndReportsTheOnesThatDiffer) {
  std::vector<NodeTopology> nodes;
  for (int i = 0; i < 3; ++i) {
    nodes.push_back(catalog_node("p4d.24xlarge"));
    nodes.back().hostname = "a" + std::to_string(i);
  }
  nodes.push_back(catalog_node("p5.48xlarge"));
  nodes.back().hostname = "odd";
  const ClusterTopology c = ClusterTopology::from_nodes(nodes);
  EXPECT_EQ(c.layout_count(), 2);
  EXPECT_FALSE(c.homogeneous());
  EXPECT_EQ(c.layout_of(1), c.layout_of(0));
  EXPECT_NE(c.layout_of(3), c.layout_of(0));
  EXPECT_EQ(c.hostname(3), "odd");
  const auto diffs = c.differences();
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_NE(diffs[0].find("odd"), std::string::npos) << diffs[0];
  EXPECT_NE(diffs[0].find("a0"), std::string::npos) << diffs[0];
  EXPECT_NE(diffs[0].find("node type"), std::string::npos) << diffs[0];
  // Not averaged: each node keeps its own description.
  EXPECT_DOUBLE_EQ(c.node(3).nic_bandwidth_gbps(), 400.0);
  EXPECT_DOUBLE_EQ(c.node(0).nic_bandwidth_gbps(), 50.0);
  EXPECT_DOUBLE_EQ(c.bandwidth_gbps(0, 24), 12.5);  // the slower rail of the two
}

TEST(Cluster, NodesWithDifferentSlotCountsStillNumberSlotsNodeMajor) {
  NodeTopology cpu2 = build_cpu_node(machine_from_node_type(find_node_type("p4d.24xlarge")), {0, 1});
  cpu2.hostname = "small";
  NodeTopology gpu8 = catalog_node("p4d.24xlarge");
  gpu8.hostname = "big";
  const ClusterTopology c = ClusterTopology::from_nodes({gpu8, cpu2, gpu8});
  EXPECT_EQ(c.slot_count(), 18);
  EXPECT_EQ(c.node_of(7), 0);
  EXPECT_EQ(c.node_of(8), 1);
  EXPECT_EQ(c.node_of(9), 1);
  EXPECT_EQ(c.node_of(10), 2);
  EXPECT_EQ(c.first_slot_of(2), 10);
  EXPECT_EQ(c.local_index(17), 7);
  EXPECT_EQ(c.link(8, 9), LinkClass::SYS);  // CPU slots on different NUMA nodes
  EXPECT_EQ(c.layout_count(), 2);
  const auto diffs = c.differences();
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_NE(diffs[0].find("2 cpu slots vs 8 gpu slots"), std::string::npos) << diffs[0];
}

TEST(Cluster, CpuSlotsAreLocPhbSys) {
  const NodeTopology n = build_cpu_node(machine_from_node_type(find_node_type("p4d.24xlarge")), {0, 0, 1, -1});
  EXPECT_EQ(n.link(0, 0), LinkClass::LOC);
  EXPECT_EQ(n.link(0, 1), LinkClass::PHB);
  EXPECT_EQ(n.link(0, 2), LinkClass::SYS);
  EXPECT_EQ(n.link(0, 3), LinkClass::SYS);    // an unknown binding counts as the worse case
  EXPECT_DOUBLE_EQ(n.bandwidth(0, 2), 10.0);  // Cascade Lake QPI
  EXPECT_EQ(n.slots[2].kind, SlotKind::cpu);
  EXPECT_EQ(n.rails[0], (std::vector<int>{0, 1}));  // the EFA NICs of its NUMA node
  EXPECT_EQ(n.rails[2], (std::vector<int>{2, 3}));
}

TEST(Cluster, FromLayoutsMergesEqualLayouts) {
  const NodeTopology a = catalog_node("p4d.24xlarge");
  const ClusterTopology c = ClusterTopology::from_layouts({a, a}, {0, 1, 1, 0}, {"w", "x", "y", "z"});
  EXPECT_EQ(c.layout_count(), 1);
  EXPECT_EQ(c.node_count(), 4);
  EXPECT_EQ(c.hostname(2), "y");
  EXPECT_THROW(ClusterTopology::from_layouts({a}, {0, 1}, {"w", "x"}), InputError);
}

}  // namespace
}  // namespace meshbench::topology
