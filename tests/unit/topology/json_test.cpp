// The documented JSON form and its parse-back.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "topology/json.hpp"
#include "topology_test_data.hpp"

namespace meshbench::topology {
namespace {

ClusterTopology mixed_cluster() {
  std::vector<NodeTopology> nodes;
  for (const char* type : {"p5.48xlarge", "p5.48xlarge", "p4d.24xlarge"}) {
    nodes.push_back(build_gpu_node(machine_from_node_type(find_node_type(type))));
    nodes.back().hostname = std::string(type) + "-" + std::to_string(nodes.size());
  }
  nodes.push_back(test::node_from(test::kG4dn));
  return ClusterTopology::from_nodes(nodes);
}

void expect_same(const ClusterTopology& a, const ClusterTopology& b) {
  ASSERT_EQ(a.node_count(), b.node_count());
  ASSERT_EQ(a.slot_count(), b.slot_count());
  EXPECT_EQ(a.layout_count(), b.layout_count());
  for (int n = 0; n < a.node_count(); ++n) {
    EXPECT_EQ(a.hostname(n), b.hostname(n));
    EXPECT_TRUE(a.node(n).same_layout(b.node(n))) << "node " << n;
  }
  for (int s = 0; s < a.slot_count(); s += 3) {
    for (int t = 0; t < a.slot_count(); t += 5) {
      EXPECT_EQ(a.link(s, t), b.link(s, t));
      EXPECT_DOUBLE_EQ(a.bandwidth_gbps(s, t), b.bandwidth_gbps(s, t));
    }
  }
}

TEST(TopologyJson, HasTheDocumentedTopLevelAndNodeFields) {
  const nlohmann::json j = to_json(mixed_cluster());
  ASSERT_TRUE(j.contains("nodes"));
  ASSERT_EQ(j["nodes"].size(), 4u);
  const auto& node = j["nodes"][3];
  EXPECT_EQ(node["hostname"], "g4dnmetal.xml");
  ASSERT_EQ(node["slots"].size(), 8u);
  const auto& slot = node["slots"][4];
  EXPECT_EQ(slot["index"], 4);
  EXPECT_EQ(slot["kind"], "gpu");
  EXPECT_EQ(slot["pci"], "0000:e7:00.0");
  EXPECT_EQ(slot["numa"], 1);
  EXPECT_EQ(slot["model"], "Tesla T4");
  const auto& nic = node["nics"][0];
  EXPECT_EQ(nic["name"], "rdmap197s0");
  EXPECT_EQ(nic["kind"], "efa");
  EXPECT_EQ(nic["pci"], "0000:c5:00.0");
  EXPECT_EQ(nic["numa"], 1);
  ASSERT_TRUE(j.contains("links"));
  EXPECT_EQ(j["links"]["within_node"].size(), 3u);
  EXPECT_EQ(j["links"]["within_node"][0]["class"][0][1], "NVL");
  EXPECT_EQ(j["links"]["between_nodes"]["class"], "NET");
  EXPECT_EQ(j["layouts"][0]["node_count"], 2);
}

TEST(TopologyJson, RoundTripKeepsEveryNodeAndLink) {
  const ClusterTopology c = mixed_cluster();
  expect_same(c, cluster_from_json(to_json(c)));
  const std::string text = to_json(c).dump();
  expect_same(c, cluster_from_json(nlohmann::json::parse(text)));
}

TEST(TopologyJson, CompactFormRoundTripsToo) {
  const ClusterTopology c = ClusterTopology::replicate(test::node_from(test::kP5, "p5.48xlarge"), 16);
  JsonOptions compact;
  compact.node_details = false;
  const nlohmann::json j = to_json(c, compact);
  EXPECT_FALSE(j["nodes"][0].contains("slots"));
  expect_same(c, cluster_from_json(j));
}

TEST(TopologyJson, ReadableDumpKeepsMatricesOnOneLinePerRow) {
  const std::string text = dump_readable(to_json(ClusterTopology::replicate(test::node_from(test::kP4d), 1)));
  EXPECT_NE(text.find(R"(["LOC", "PIX", "PHB", "PHB", "SYS", "SYS", "SYS", "SYS"])"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(text), nlohmann::json(to_json(ClusterTopology::replicate(test::node_from(test::kP4d), 1))));
}

TEST(TopologyJson, MalformedDocumentsAreInputErrors) {
  nlohmann::json j = to_json(mixed_cluster());
  nlohmann::json bad = j;
  bad["links"]["within_node"][0]["class"][0][1] = "WARP";
  EXPECT_THROW(cluster_from_json(bad), InputError);
  bad = j;
  bad["nodes"][0]["layout"] = 9;
  EXPECT_THROW(cluster_from_json(bad), InputError);
  bad = j;
  bad["schema_version"] = 99;
  EXPECT_THROW(cluster_from_json(bad), InputError);
  bad = j;
  bad.erase("layouts");
  EXPECT_THROW(cluster_from_json(bad), InputError);
  EXPECT_THROW(cluster_from_json(nlohmann::json::array()), InputError);
}

// nlohmann casts a number to int as it is: 1e113 (a float) would be undefined behaviour, 2^32 + 1
// (unsigned) would wrap to 1, so an integer field past int's range is refused with one line.
TEST(TopologyJson, IntegerFieldsPastIntsRangeAreRefused) {
  const nlohmann::json j = to_json(mixed_cluster());
  const auto refusal = [](const nlohmann::json& bad) -> std::string {
    try {
      cluster_from_json(bad);
    } catch (const InputError& e) {
      return e.what();
    }
    return "accepted";
  };
  nlohmann::json bad = j;
  bad["layouts"][0]["slots"][2]["pci_switch"] = 1.44444e113;
  EXPECT_EQ(refusal(bad), "topology JSON: slot \"pci_switch\" must be a whole number from -2147483648 to 2147483647");
  bad = j;
  bad["layouts"][0]["slots"][1]["index"] = 4294967297ULL;
  EXPECT_EQ(refusal(bad), "topology JSON: slot \"index\" must be a whole number from -2147483648 to 2147483647");
  bad = j;
  bad["layouts"][0]["slots"][0]["rail"] = {0, -3000000000LL};
  EXPECT_EQ(refusal(bad), "topology JSON: slot \"rail\" must be a whole number from -2147483648 to 2147483647");
  bad = j;
  bad["layouts"][0]["nics"][0]["numa"] = 1.5;
  EXPECT_EQ(refusal(bad), "topology JSON: nic \"numa\" must be a whole number from -2147483648 to 2147483647");
  bad = j;
  bad["nodes"][1]["layout"] = "0";
  EXPECT_EQ(refusal(bad), "topology JSON: node \"layout\" must be a whole number from -2147483648 to 2147483647");
  // In range they still read as before.
  bad = j;
  bad["layouts"][0]["slots"][2]["pci_switch"] = 7;
  bad["layouts"][0]["numa_nodes"] = 2;
  EXPECT_EQ(refusal(bad), "accepted");
  EXPECT_EQ(cluster_from_json(bad).layout(0).slots[2].pci_switch, 7);
}

}  // namespace
}  // namespace meshbench::topology
