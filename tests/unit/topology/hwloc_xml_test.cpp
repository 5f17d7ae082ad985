// hwloc XML exports read through the hwloc library: the DGX-2 (NVLink through NVSwitches
// from hwloc's NVLinkBandwidth matrix) and the AWS g4dn.metal (PCIe only, one EFA).
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "topology/options.hpp"
#include "topology_test_data.hpp"

namespace meshbench::topology {
namespace {

TEST(HwlocXml, Dgx2HasSixteenGpusAllOnNvlinkThroughNvswitches) {
  const Machine m = load_topology_file(test::data(test::kDgx2));
  EXPECT_EQ(m.source, "hwloc-xml");
  EXPECT_EQ(m.count(PciKind::nvswitch), 12);
  const NodeTopology n = build_gpu_node(m);
  ASSERT_EQ(n.slot_count(), 16);
  for (const Slot& s : n.slots) EXPECT_EQ(s.model, "Tesla V100-SXM3-32GB-H");
  for (int a = 0; a < 16; ++a) {
    EXPECT_EQ(n.slots[static_cast<std::size_t>(a)].numa, a / 8);
    for (int b = 0; b < 16; ++b) {
      if (a == b) continue;
      EXPECT_EQ(n.link(a, b), LinkClass::NVL) << a << "-" << b;
      // Six NVLink 2 links (one to each NVSwitch of its board) at NCCL's sm70 20 GB/s.
      EXPECT_DOUBLE_EQ(n.bandwidth(a, b), 120.0) << a << "-" << b;
    }
  }
  EXPECT_TRUE(n.nics.empty());
}

TEST(HwlocXml, Dgx2PciTreeAloneFollowsNcclsSwitchRule) {
  Machine m = load_topology_file(test::data(test::kDgx2));
  m.nvlinks.clear();  // what NCCL would see without NVLinks
  const NodeTopology n = build_gpu_node(m);
  EXPECT_EQ(n.link(0, 1), LinkClass::PIX);  // both under PLX 0000:32:00.0
  EXPECT_EQ(n.link(0, 2), LinkClass::PXB);  // through the upper PLX 0000:2c:00.0
  EXPECT_EQ(n.link(0, 4), LinkClass::PHB);  // another root complex of the same socket
  EXPECT_EQ(n.link(0, 8), LinkClass::SYS);  // the other socket
  EXPECT_EQ(n.slots[0].pci, "0000:34:00.0");
}

TEST(HwlocXml, G4dnMetalHasEightGpusOneEfaAndGpusSplitAcrossNuma) {
  const NodeTopology n = build_gpu_node(load_topology_file(test::data(test::kG4dn)));
  ASSERT_EQ(n.slot_count(), 8);
  for (int s = 0; s < 8; ++s) {
    EXPECT_EQ(n.slots[static_cast<std::size_t>(s)].numa, s < 4 ? 0 : 1) << "slot " << s;
    EXPECT_EQ(n.slots[static_cast<std::size_t>(s)].model, "Tesla T4");
  }
  int efa = 0;
  for (const Nic& nic : n.nics) efa += nic.kind == NicKind::efa ? 1 : 0;
  EXPECT_EQ(efa, 1);
  ASSERT_EQ(n.nics.size(), 2u);  // the EFA and the ENA (eth0)
  EXPECT_EQ(n.nics[0].name, "rdmap197s0");
  EXPECT_EQ(n.nics[0].numa, 1);
  EXPECT_EQ(n.nics[1].kind, NicKind::eth);
  // Every GPU hangs off its own root port: PHB within a socket, SYS across.
  EXPECT_EQ(n.link(0, 1), LinkClass::PHB);
  EXPECT_EQ(n.link(3, 4), LinkClass::SYS);
  EXPECT_DOUBLE_EQ(n.bandwidth(0, 1), 12.0);
  EXPECT_DOUBLE_EQ(n.bandwidth(3, 4), 10.0);
  // The rail is the EFA for every GPU (the RDMA NIC, not the ENA).
  for (int s = 0; s < 8; ++s) EXPECT_EQ(n.rails[static_cast<std::size_t>(s)], std::vector<int>{0});
}

TEST(HwlocXml, ContentDecidesTheFormatNotTheName) {
  // An NCCL file whose name ends in .xml like any other; and an hwloc file loads as hwloc.
  EXPECT_EQ(load_topology_file(test::data(test::kP4d)).source, "nccl-xml");
  EXPECT_EQ(load_topology_file(test::data(test::kG4dn)).source, "hwloc-xml");
  EXPECT_THROW(load_hwloc_xml(test::data(test::kP4d)), InputError);
}

// Found by fuzzing: hwloc 2.9 itself crashes on such a file (tests/fuzz/regressions/hwloc_xml/);
// a child process tries it first.
TEST(HwlocXml, FileThatCrashesHwlocIsRefusedAndThisProcessLives) {
  const std::string path =
      std::string(MESHBENCH_SOURCE_DIR) + "/tests/fuzz/regressions/hwloc_xml/cpuset-without-complete-cpuset-crashes-hwloc.xml";
  try {
    (void)load_topology_file(path);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("hwloc crashed reading '" + path + "'"), std::string::npos) << e.what();
  }
}

TEST(LiveDiscovery, ThisNodeHasAtLeastOneSlotAndOnlyCpuSlotsWithoutGpus) {
  const NodeTopology n = discover_this_node(3);
  ASSERT_GE(n.slot_count(), 1);
  if (n.slots[0].kind == SlotKind::cpu) {
    EXPECT_EQ(n.slot_count(), 3);
    EXPECT_EQ(n.link(0, 1), n.slots[0].numa >= 0 && n.slots[0].numa == n.slots[1].numa ? LinkClass::PHB : LinkClass::SYS);
  }
  EXPECT_EQ(n.source.rfind("hwloc", 0), 0u);
  EXPECT_FALSE(n.raw_xml.empty());
}

}  // namespace
}  // namespace meshbench::topology
