// The node-type catalog: every entry gives a complete synthetic node, files and entries agree.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "topology/options.hpp"
#include "topology_test_data.hpp"

namespace meshbench::topology {
namespace {

TEST(Catalog, HasTheRequiredNodeTypesEachWithASource) {
  for (const char* name :
       {"p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge", "g5.48xlarge", "dgx-h100"}) {
    const NodeType& t = find_node_type(name);
    EXPECT_EQ(t.name, name);
    EXPECT_FALSE(t.source.empty()) << name;
  }
  EXPECT_EQ(find_node_type("P5.48XLARGE").name, "p5.48xlarge");
}

TEST(Catalog, UnknownNodeTypeListsTheKnownNames) {
  try {
    find_node_type("p9.huge");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("p9.huge"), std::string::npos);
    EXPECT_NE(what.find("p5.48xlarge"), std::string::npos);
    EXPECT_NE(what.find("dgx-h100"), std::string::npos);
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
}

TEST(Catalog, EverySyntheticNodeMatchesItsEntry) {
  for (const NodeType& t : node_types()) {
    const NodeTopology n = build_gpu_node(machine_from_node_type(t));
    ASSERT_EQ(n.slot_count(), t.gpu_count) << t.name;
    EXPECT_EQ(static_cast<int>(n.nics.size()), t.nic_count) << t.name;
    EXPECT_DOUBLE_EQ(n.nic_bandwidth_gbps(), t.nic_count * t.nic_gbit / 8.0) << t.name;
    EXPECT_EQ(n.numa_nodes, t.numa_nodes) << t.name;
    EXPECT_EQ(n.slots[0].model, t.gpu_model) << t.name;
    for (int a = 0; a < n.slot_count(); ++a) {
      EXPECT_FALSE(n.rails[static_cast<std::size_t>(a)].empty()) << t.name << " slot " << a;
      for (int b = 0; b < n.slot_count(); ++b) {
        if (a == b) continue;
        if (t.nvlinks_per_gpu > 0) {
          EXPECT_EQ(n.link(a, b), LinkClass::NVL) << t.name;
        } else {
          EXPECT_NE(n.link(a, b), LinkClass::NVL) << t.name;
        }
      }
    }
  }
}

TEST(Catalog, NvlinkBandwidthFollowsTheGpuGeneration) {
  EXPECT_DOUBLE_EQ(build_gpu_node(machine_from_node_type(find_node_type("p4d.24xlarge"))).bandwidth(0, 1), 240.0);
  EXPECT_NEAR(build_gpu_node(machine_from_node_type(find_node_type("p5.48xlarge"))).bandwidth(0, 1), 370.8, 1e-9);
  EXPECT_NEAR(build_gpu_node(machine_from_node_type(find_node_type("p6-b200.48xlarge"))).bandwidth(0, 1), 721.8, 1e-9);
}

TEST(Catalog, RailsOfTheAwsTypesFollowTheirNicCounts) {
  const auto rail = [](const char* name) { return build_gpu_node(machine_from_node_type(find_node_type(name))).rails[3].size(); };
  EXPECT_EQ(rail("p4d.24xlarge"), 1u);  // two GPUs share one EFA
  EXPECT_EQ(rail("p5.48xlarge"), 4u);
  EXPECT_EQ(rail("p5en.48xlarge"), 2u);
  EXPECT_EQ(rail("p6-b200.48xlarge"), 1u);
  EXPECT_EQ(rail("dgx-h100"), 1u);
}

TEST(Catalog, FilePlusNodeTypeEqualsTheCatalogEntryInClassesAndRails) {
  for (const auto& [file, type] :
       std::vector<std::pair<std::string, std::string>>{{test::kP5, "p5.48xlarge"}, {test::kP4d, "p4d.24xlarge"}}) {
    const NodeTopology from_file = test::node_from(file, type);
    const NodeTopology synthetic = build_gpu_node(machine_from_node_type(find_node_type(type)));
    EXPECT_EQ(from_file.links, synthetic.links) << type;
    EXPECT_EQ(from_file.rails, synthetic.rails) << type;
    EXPECT_EQ(from_file.nic_bandwidth_gbps(), synthetic.nic_bandwidth_gbps()) << type;
  }
}

TEST(Catalog, NodeTypeThatContradictsTheFileIsAnInputError) {
  EXPECT_THROW(test::node_from(test::kP4d, "p4de.24xlarge"), InputError);  // other GPU model
  EXPECT_THROW(test::node_from(test::kP4d, "p5.48xlarge"), InputError);
  EXPECT_THROW(test::node_from(test::kG4dn, "p4d.24xlarge"), InputError);
  EXPECT_THROW(test::node_from(test::kP5, "p5en.48xlarge"), InputError);  // 4 leaves per switch, p5en has 1 GPU + 2 NICs
  EXPECT_THROW(test::node_from(test::kP5, "g5.48xlarge"), InputError);
}

TEST(Catalog, ANodeTypeThatFitsAFileIsSuggested) {
  const std::vector<std::string> fits = node_types_matching(load_topology_file(test::data(test::kP5)));
  EXPECT_EQ(fits, (std::vector<std::string>{"p5.48xlarge", "p5e.48xlarge"}));
}

}  // namespace
}  // namespace meshbench::topology
