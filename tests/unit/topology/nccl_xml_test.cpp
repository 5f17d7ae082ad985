// NCCL topology XML as AWS ships it: link classes as NCCL computes them from the file alone,
// and with the node type applied.
#include <gtest/gtest.h>

#include <set>

#include "common/error.hpp"
#include "topology/src/nccl_rules.hpp"
#include "topology_test_data.hpp"

namespace meshbench::topology {
namespace {

using test::node_from;

TEST(NcclXml, P4dHasEightGpusAndFourEfaNicsTwoGpusAndOneNicPerSwitch) {
  const NodeTopology n = node_from(test::kP4d);
  ASSERT_EQ(n.slot_count(), 8);
  ASSERT_EQ(n.nics.size(), 4u);
  for (const Nic& nic : n.nics) EXPECT_EQ(nic.kind, NicKind::efa);
  std::map<int, int> gpus_per_switch, nics_per_switch;
  for (const Slot& s : n.slots) {
    EXPECT_EQ(s.kind, SlotKind::gpu);
    EXPECT_EQ(s.model, "NVIDIA A100-SXM4-40GB");
    ++gpus_per_switch[s.pci_switch];
  }
  for (const Nic& nic : n.nics) ++nics_per_switch[nic.pci_switch];
  ASSERT_EQ(gpus_per_switch.size(), 4u);
  for (const auto& [sw, count] : gpus_per_switch) {
    EXPECT_EQ(count, 2) << "switch " << sw;
    EXPECT_EQ(nics_per_switch[sw], 1) << "switch " << sw;
  }
  EXPECT_EQ(n.slots[0].pci, "0000:10:1c.0");
  EXPECT_EQ(n.nics[0].pci, "0000:10:1b.0");
  EXPECT_EQ(n.nics[0].name, "rdmap16s27");
  EXPECT_EQ(n.numa_nodes, 2);
}

TEST(NcclXml, P4dLinkClassesFromTheFileAloneAreNcclsPciClasses) {
  const NodeTopology n = node_from(test::kP4d);
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      const bool same_switch = a / 2 == b / 2, same_cpu = a / 4 == b / 4;
      const LinkClass want = a == b ? LinkClass::LOC : same_switch ? LinkClass::PIX : same_cpu ? LinkClass::PHB : LinkClass::SYS;
      EXPECT_EQ(n.link(a, b), want) << a << "-" << b;
      if (a == b) continue;
      // 8 GT/s x16 = 12 GB/s per PCI link; Skylake-class QPI (Intel model 85) = 10 GB/s.
      EXPECT_DOUBLE_EQ(n.bandwidth(a, b), same_cpu ? 12.0 : 10.0) << a << "-" << b;
    }
  }
}

TEST(NcclXml, P4dRailsAreTheNicOnTheGpusSwitch) {
  const NodeTopology n = node_from(test::kP4d);
  for (int s = 0; s < 8; ++s) EXPECT_EQ(n.rails[static_cast<std::size_t>(s)], std::vector<int>{s / 2}) << "slot " << s;
  // Without the node type the line rate is NCCL's default for an unknown speed.
  EXPECT_DOUBLE_EQ(n.rail_bandwidth_gbps(0), 1.25);
}

TEST(NcclXml, P4dWithNodeTypeHasNvlinkBetweenAllGpuPairs) {
  const NodeTopology n = node_from(test::kP4d, "p4d.24xlarge");
  for (int a = 0; a < 8; ++a) {
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      EXPECT_EQ(n.link(a, b), LinkClass::NVL) << a << "-" << b;
      EXPECT_DOUBLE_EQ(n.bandwidth(a, b), 240.0) << a << "-" << b;  // 12 links x 20 GB/s (sm80)
    }
  }
  EXPECT_DOUBLE_EQ(n.rail_bandwidth_gbps(0), 12.5);  // 100 Gb/s EFA
  EXPECT_EQ(n.rails[5], std::vector<int>{2});
  EXPECT_EQ(n.slots[0].pci, "0000:10:1c.0");  // the file's bus ids stay
}

TEST(NcclXml, P4deHasItsGpuModelAndTheP4dLayout) {
  const NodeTopology file_only = node_from(test::kP4de);
  ASSERT_EQ(file_only.slot_count(), 8);
  EXPECT_EQ(file_only.slots[0].model, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(file_only.nics.size(), 4u);
  EXPECT_EQ(file_only.link(0, 1), LinkClass::PIX);
  EXPECT_EQ(file_only.link(0, 2), LinkClass::PHB);
  EXPECT_EQ(file_only.link(0, 4), LinkClass::SYS);
  const NodeTopology typed = node_from(test::kP4de, "p4de.24xlarge");
  EXPECT_EQ(typed.link(0, 7), LinkClass::NVL);
  EXPECT_EQ(typed.node_type, "p4de.24xlarge");
}

TEST(NcclXml, P5FileAloneHasThirtyTwoNicLeavesInEightSwitchesAndNoGpus) {
  const Machine m = load_topology_file(test::data(test::kP5));
  EXPECT_EQ(m.count(PciKind::gpu), 0);
  EXPECT_EQ(m.count(PciKind::pci_switch), 8);
  EXPECT_EQ(m.count(PciKind::unknown), 32);
  EXPECT_EQ(m.cpus.size(), 2u);
}

TEST(NcclXml, P5WithNodeTypeHasEightGpusEachWithFourEfaNicsOnItsRail) {
  const NodeTopology n = node_from(test::kP5, "p5.48xlarge");
  ASSERT_EQ(n.slot_count(), 8);
  ASSERT_EQ(n.nics.size(), 32u);
  std::set<int> switches;
  for (const Nic& nic : n.nics) {
    EXPECT_EQ(nic.kind, NicKind::efa);
    EXPECT_DOUBLE_EQ(nic.speed_gbps, 12.5);
    switches.insert(nic.pci_switch);
  }
  EXPECT_EQ(switches.size(), 8u);
  std::set<int> seen;
  for (int s = 0; s < 8; ++s) {
    const auto& rail = n.rails[static_cast<std::size_t>(s)];
    ASSERT_EQ(rail.size(), 4u) << "slot " << s;
    for (int nic : rail) {
      EXPECT_EQ(n.nics[static_cast<std::size_t>(nic)].pci_switch, n.slots[static_cast<std::size_t>(s)].pci_switch);
      EXPECT_TRUE(seen.insert(nic).second) << "NIC " << nic << " on two rails";
    }
    EXPECT_EQ(n.slots[static_cast<std::size_t>(s)].numa, s / 4);
    EXPECT_DOUBLE_EQ(n.rail_bandwidth_gbps(s), 50.0);
  }
  EXPECT_EQ(n.nics[0].name, "rdmap79s0");
  EXPECT_EQ(n.link(0, 7), LinkClass::NVL);
  EXPECT_NEAR(n.bandwidth(0, 7), 18 * 20.6, 1e-9);  // H100: 18 NVLinks at NCCL's sm90 figure
}

// A dump as NCCL writes it (NCCL_TOPO_DUMP_FILE): <gpu> with NVLinks to GPUs only, in the
// DGX-1 hybrid cube-mesh pattern, so some pairs need a GPU in between (NVB).
const char* kCubeMesh = R"(<system version="1">
  <cpu numaid="0" affinity="ff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="79">
    <pci busid="0000:10:00.0" class="0x060400" link_speed="8.0 GT/s PCIe" link_width="16">
      <pci busid="0000:11:00.0" class="0x030200" vendor="0x10de" device="0x1db1" link_speed="8.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="70" rank="0" gdr="1">
          <nvlink target="0000:12:00.0" count="1" tclass="0x030200"/>
          <nvlink target="0000:13:00.0" count="2" tclass="0x030200"/>
        </gpu>
      </pci>
      <pci busid="0000:12:00.0" class="0x030200" vendor="0x10de" device="0x1db1" link_speed="8.0 GT/s PCIe" link_width="16">
        <gpu dev="1" sm="70" rank="1" gdr="1">
          <nvlink target="0000:11:00.0" count="1" tclass="0x030200"/>
          <nvlink target="0000:14:00.0" count="1" tclass="0x030200"/>
        </gpu>
      </pci>
      <pci busid="0000:13:00.0" class="0x030200" vendor="0x10de" device="0x1db1" link_speed="8.0 GT/s PCIe" link_width="16">
        <gpu dev="2" sm="70" rank="2" gdr="1">
          <nvlink target="0000:11:00.0" count="2" tclass="0x030200"/>
        </gpu>
      </pci>
      <pci busid="0000:14:00.0" class="0x030200" vendor="0x10de" device="0x1db1" link_speed="8.0 GT/s PCIe" link_width="16">
        <gpu dev="3" sm="70" rank="3" gdr="1">
          <nvlink target="0000:12:00.0" count="1" tclass="0x030200"/>
        </gpu>
      </pci>
      <pci busid="0000:15:00.0" class="0x020700" vendor="0x15b3" device="0x1017" link_speed="8.0 GT/s PCIe" link_width="16">
        <nic><net name="mlx5_0" dev="0" speed="100000" port="1" gdr="1"/></nic>
      </pci>
    </pci>
  </cpu>
</system>
)";

TEST(NcclXml, DumpWithGpuNvlinksGivesNvlAndNvbAndNetSpeeds) {
  const NodeTopology n = build_gpu_node(parse_nccl_xml(kCubeMesh, "cube"));
  ASSERT_EQ(n.slot_count(), 4);
  EXPECT_EQ(n.link(0, 1), LinkClass::NVL);
  EXPECT_DOUBLE_EQ(n.bandwidth(0, 1), 20.0);  // one sm70 link
  EXPECT_EQ(n.link(0, 2), LinkClass::NVL);
  EXPECT_DOUBLE_EQ(n.bandwidth(0, 2), 40.0);  // two links
  EXPECT_EQ(n.link(0, 3), LinkClass::NVB);    // through GPU 1
  EXPECT_DOUBLE_EQ(n.bandwidth(0, 3), 20.0);
  EXPECT_EQ(n.link(2, 3), LinkClass::PIX);  // two NVLink hops through GPUs is not allowed: PCIe switch
  ASSERT_EQ(n.nics.size(), 1u);
  EXPECT_EQ(n.nics[0].name, "mlx5_0");
  EXPECT_EQ(n.nics[0].kind, NicKind::ib);
  EXPECT_DOUBLE_EQ(n.nics[0].speed_gbps, 12.5);  // 100000 Mb/s / 8000
  EXPECT_EQ(n.rails[0], std::vector<int>{0});
}

TEST(NcclXml, WrongVersionAndWrongRootAreInputErrors) {
  EXPECT_THROW(parse_nccl_xml(R"(<system version="2"><cpu numaid="0"/></system>)", "v2"), InputError);
  EXPECT_THROW(parse_nccl_xml(R"(<graphs version="1"/>)", "graphs"), InputError);
  EXPECT_THROW(parse_nccl_xml(R"(<system version="1"><cpu numaid="0">)", "cut"), InputError);
  EXPECT_THROW(parse_nccl_xml(R"(<system version="1"></system>)", "empty"), InputError);
}

// Found by fuzzing (tests/fuzz/regressions/nccl_xml/): a Latin-1 byte reached the JSON printer,
// a lane count of 10^55 overflowed NCCL's width x speed.
TEST(NcclXml, BytesThatAreNotUtf8AndWildCountsAreInputErrors) {
  auto message = [](const std::string& xml) {
    try {
      (void)parse_nccl_xml(xml, "t.xml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message("<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:\xb6:00.0\"/></cpu></system>")
                .find("not UTF-8 text (byte 0xB6 at line 1, column 54)"),
            std::string::npos);
  EXPECT_EQ(message("<system version=\"1\"><cpu numaid=\"0\"><pci busid=\"0000:\xc3\xa9:00.0\"/></cpu></system>"),
            "accepted");  // é is UTF-8
  EXPECT_NE(message(R"(<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0" link_width="999999999999"/></cpu></system>)")
                .find("link_width=\"999999999999\"> is outside 0..32"),
            std::string::npos);
  EXPECT_NE(
      message(
          R"(<system version="1"><cpu numaid="0"><pci busid="0000:01:00.0" class="0x030000"><gpu dev="0" sm="80"><nvlink target="0000:02:00.0" count="-3"/></gpu></pci></cpu></system>)")
          .find("count=\"-3\"> is outside 1..1024"),
      std::string::npos);
}

TEST(NcclRules, PciSpeedTableNvlinkAndInterSocketBandwidths) {
  EXPECT_DOUBLE_EQ(nccl::pci_link_bw("8 GT/s", 16), 12.0);
  EXPECT_DOUBLE_EQ(nccl::pci_link_bw("16.0 GT/s PCIe", 16), 24.0);
  EXPECT_DOUBLE_EQ(nccl::pci_link_bw("32 GT/s PCIe/s", 16), 48.0);  // AWS's p5 spelling, prefix match
  EXPECT_DOUBLE_EQ(nccl::pci_link_bw("16 GT/s", 8), 12.0);
  EXPECT_DOUBLE_EQ(nccl::pci_link_bw("Unknown", 0), 12.0);           // default speed 60, width 0 -> 16
  EXPECT_NEAR(nccl::pci_link_bw_from_hwloc(15.753846), 12.0, 1e-5);  // Gen3 x16
  EXPECT_NEAR(nccl::pci_link_bw_from_hwloc(31.507692), 24.0, 1e-5);  // Gen4 x16
  EXPECT_NEAR(nccl::pci_link_bw_from_hwloc(2.0), 1.5, 1e-9);         // Gen1 x8
  EXPECT_DOUBLE_EQ(nccl::nvlink_bw_per_link(80), 20.0);
  EXPECT_DOUBLE_EQ(nccl::nvlink_bw_per_link(86), 12.0);
  EXPECT_DOUBLE_EQ(nccl::nvlink_bw_per_link(90), 20.6);
  EXPECT_DOUBLE_EQ(nccl::nvlink_bw_per_link(100), 40.1);
  EXPECT_DOUBLE_EQ(nccl::inter_cpu_bw({0, "x86_64", "GenuineIntel", 6, 85, ""}), 10.0);
  EXPECT_DOUBLE_EQ(nccl::inter_cpu_bw({0, "x86_64", "GenuineIntel", 6, 143, ""}), 22.0);
  EXPECT_DOUBLE_EQ(nccl::inter_cpu_bw({0, "x86_64", "GenuineIntel", 6, 207, ""}), 40.0);
  EXPECT_DOUBLE_EQ(nccl::inter_cpu_bw({0, "x86_64", "GenuineIntel", 6, 79, ""}), 6.0);
  EXPECT_DOUBLE_EQ(nccl::inter_cpu_bw({0, "x86_64", "AuthenticAMD", 25, 1, ""}), 16.0);
  EXPECT_DOUBLE_EQ(nccl::inter_cpu_bw({0, "", "", -1, -1, ""}), nccl::kLocBw);  // NCCL keeps LOC_BW when it knows nothing
}

}  // namespace
}  // namespace meshbench::topology
