// The link rate file (slurm/localcluster/up.sh writes one, MESHBENCH_LINK_RATES names it):
// live discovery takes a shaped NIC's line rate from it, and the shaped rate between a node's
// CPU slots from its in-node line, and says so in the node's notes; a file it cannot use is a
// note, never an error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <limits.h>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>

#include "tests/unit/scratch_dir.hpp"
#include "topology/json.hpp"
#include "topology/loaders.hpp"
#include "topology/options.hpp"

namespace meshbench::topology {
namespace {

// A CPU node with one virtual NIC of unknown speed, as a local cluster's node is discovered.
Machine emulated_node() {
  Machine m;
  m.name = "mbn-t-n0";
  m.cpus.push_back(CpuDomain{});
  PciDevice nic;
  nic.kind = PciKind::nic;
  nic.cpu = -1;
  nic.nic_kind = NicKind::eth;
  nic.ports.push_back(NetPort{"eth0", -1, 0});
  m.pci.push_back(nic);
  return m;
}

class LinkRates : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    std::string path = (dir_ / "link_rates").string();
    std::ofstream(path) << text;
    return path;
  }
  // The node after the file at `path`, with CPU slots bound to `slot_numa`, and its notes joined.
  NodeTopology apply(const std::string& path, std::string& notes, const std::vector<int>& slot_numa = {0, 0}) {
    Machine m = emulated_node();
    apply_link_rates(m, path, "mbn-t-n0");
    NodeTopology n = build_cpu_node(m, slot_numa);
    notes.clear();
    for (const auto& note : n.notes) notes += note + "\n";
    return n;
  }
  test_support::ScratchDir dir_{"link-rates"};
};

TEST_F(LinkRates, TheNodesLineGivesItsNicTheShapedRateAndANoteSaysWhence) {
  const std::string path = write(
      "# host interface bits_per_second\n"
      "mbn-t-n0 eth0 1000000000\n"
      "mbn-t-n1 eth0 250000000  # a slower node\n");
  std::string notes;
  const NodeTopology n = apply(path, notes);
  ASSERT_EQ(n.nics.size(), 1u);
  EXPECT_DOUBLE_EQ(n.nics[0].speed_gbps, 0.125);
  EXPECT_NE(notes.find("NIC eth0 line rate 1 Gb/s (0.125 GB/s)"), std::string::npos) << notes;
  EXPECT_NE(notes.find(path), std::string::npos) << notes;
  EXPECT_NE(notes.find("MESHBENCH_LINK_RATES"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("not known"), std::string::npos) << notes;
}

// Live discovery sends each node to rank 0 as JSON: a slow node's 250 Mbit/s must arrive whole.
TEST_F(LinkRates, AShapedRateSurvivesTheNodesJson) {
  std::string notes;
  const NodeTopology n = apply(write("mbn-t-n0 eth0 250000000\n"), notes);
  const NodeTopology back = node_from_json(nlohmann::json::parse(to_json(n).dump()));
  ASSERT_EQ(back.nics.size(), 1u);
  EXPECT_DOUBLE_EQ(back.nics[0].speed_gbps, 0.03125);
}

TEST_F(LinkRates, AFileItCannotUseIsOneNoteAndTheDefaultStays) {
  const struct {
    std::string text, note;
  } cases[] = {
      {"mbn-t-n0 eth0 1gbit\n", "line 1 is 'mbn-t-n0 eth0 1gbit', not 'HOST INTERFACE BITS_PER_SECOND'"},
      {"# ok\nmbn-t-n0 eth0\n", "line 2 is 'mbn-t-n0 eth0'"},
      {"mbn-t-n0 eth0 1000 5\n", "line 1 is 'mbn-t-n0 eth0 1000 5'"},
      {"mbn-t-n0 eth0 -1\n", "line 1 is"},
      {"mbn-t-n1 eth0 1000000000\n", "names no link of this node"},
      {"mbn-t-n0 eth9 1000000000\n", "names NIC eth9, which this node does not have"},
      {"mbn-t-n0 eth0 0\n", "NIC eth0 is not shaped"},
  };
  for (const auto& c : cases) {
    std::string notes;
    const NodeTopology n = apply(write(c.text), notes);
    ASSERT_EQ(n.nics.size(), 1u);
    EXPECT_DOUBLE_EQ(n.nics[0].speed_gbps, 1.25) << c.text;  // NCCL's 10 Gb/s default
    EXPECT_NE(notes.find(c.note), std::string::npos) << c.text << notes;
    EXPECT_NE(notes.find("not known"), std::string::npos) << c.text << notes;
    for (const auto& note : n.notes) EXPECT_EQ(note.find('\n'), std::string::npos) << note;
  }
  std::string notes;
  apply((dir_ / "missing").string(), notes);
  EXPECT_NE(notes.find("cannot be read"), std::string::npos) << notes;
}

// The in-node line: every pair of distinct CPU slots, on one NUMA node, on two, or bound to
// none, reaches the other at the rate the path is shaped to; a slot to itself and the NIC keep
// their rates.
TEST_F(LinkRates, TheInNodeLineGivesEveryPairOfCpuSlotsItsRateAndLeavesTheNicAlone) {
  const std::string path = write(
      "mbn-t-n0 in-node 200000000\n"
      "mbn-t-n1 in-node 100000000  # another node's\n");
  std::string plain_notes, notes;
  const NodeTopology plain = apply((dir_ / "missing").string(), plain_notes, {0, 0, 1, -1});
  const NodeTopology n = apply(path, notes, {0, 0, 1, -1});
  ASSERT_EQ(n.slot_count(), 4);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a == b) {
        EXPECT_DOUBLE_EQ(n.bandwidth(a, b), plain.bandwidth(a, b)) << a;
      } else {
        EXPECT_DOUBLE_EQ(n.bandwidth(a, b), 0.025) << a << " to " << b;
        EXPECT_EQ(n.link(a, b), plain.link(a, b)) << a << " to " << b;  // the class stays the binding's
      }
    }
  }
  ASSERT_EQ(n.nics.size(), 1u);
  EXPECT_DOUBLE_EQ(n.nics[0].speed_gbps, plain.nics[0].speed_gbps);
  EXPECT_NE(notes.find("in-node path rate 0.2 Gb/s (0.025 GB/s) between CPU slots: the rate it is shaped to, from link rate file " + path),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("names no link of this node"), std::string::npos) << notes;
  EXPECT_EQ(notes.find("in-node, which"), std::string::npos) << notes;  // not taken for a NIC

  // Live discovery sends each node to rank 0 as JSON: the shaped rate arrives whole.
  const NodeTopology back = node_from_json(nlohmann::json::parse(to_json(n).dump()));
  EXPECT_DOUBLE_EQ(back.bandwidth(0, 1), 0.025);
  EXPECT_DOUBLE_EQ(back.bandwidth(3, 2), 0.025);
}

// 100 Mbit/s is 0.0125 GB/s: a bandwidth with four decimals, which a rounding to three would
// send to rank 0 as 0.013, making every other node's layout differ from the discovering one's.
TEST_F(LinkRates, AnInNodeRateWithFourDecimalsSurvivesTheNodesJson) {
  std::string notes;
  const NodeTopology n = apply(write("mbn-t-n0 in-node 100000000\n"), notes);
  const NodeTopology back = node_from_json(nlohmann::json::parse(to_json(n).dump()));
  EXPECT_DOUBLE_EQ(back.bandwidth(0, 1), 0.0125);
  EXPECT_EQ(back.bandwidth_gbps, n.bandwidth_gbps);
}

TEST_F(LinkRates, NicAndInNodeLinesOfOneNodeEachGiveTheirOwnRate) {
  std::string notes;
  const NodeTopology n = apply(write("mbn-t-n0 eth0 1000000000\nmbn-t-n0 in-node 200000000\n"), notes);
  ASSERT_EQ(n.nics.size(), 1u);
  EXPECT_DOUBLE_EQ(n.nics[0].speed_gbps, 0.125);
  EXPECT_DOUBLE_EQ(n.bandwidth(0, 1), 0.025);
  EXPECT_DOUBLE_EQ(n.bandwidth(1, 0), 0.025);
}

// Without an in-node line of this node (none, another node's, or an unshaped 0) the CPU slots
// keep the rate of their classes.
TEST_F(LinkRates, WithoutTheNodesInNodeLineTheSlotsKeepTheirDefault) {
  std::string plain_notes;
  const NodeTopology plain = apply((dir_ / "missing").string(), plain_notes, {0, 0, 1});
  const struct {
    std::string text, note;
  } cases[] = {
      {"mbn-t-n0 eth0 1000000000\n", "NIC eth0 line rate 1 Gb/s"},
      {"mbn-t-n1 in-node 200000000\n", "names no link of this node"},
      {"mbn-t-n0 in-node 0\n", "the in-node path is not shaped"},
      {"mbn-t-n0 in-node 200000000 5\n", "line 1 is 'mbn-t-n0 in-node 200000000 5'"},
  };
  for (const auto& c : cases) {
    std::string notes;
    const NodeTopology n = apply(write(c.text), notes, {0, 0, 1});
    EXPECT_EQ(n.bandwidth_gbps, plain.bandwidth_gbps) << c.text;
    EXPECT_NE(notes.find(c.note), std::string::npos) << c.text << notes;
    EXPECT_EQ(notes.find("in-node path rate"), std::string::npos) << c.text << notes;
  }
}

std::string this_host() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) != 0) return "";
  return host;
}

// This node discovered live with `cpu_slots` CPU slots, MESHBENCH_LINK_RATES naming a file of
// `lines` meanwhile.
NodeTopology discover_with_rates(const std::string& lines, int cpu_slots) {
  const test_support::ScratchDir dir("link-rates");
  const std::string path = (dir / "link_rates").string();
  std::ofstream(path) << lines;
  const char* before = std::getenv(kLinkRatesVariable);
  const std::optional<std::string> saved = before != nullptr ? std::optional<std::string>(before) : std::nullopt;
  setenv(kLinkRatesVariable, path.c_str(), 1);
  NodeTopology node = discover_this_node(cpu_slots);
  if (saved) {
    setenv(kLinkRatesVariable, saved->c_str(), 1);
  } else {
    unsetenv(kLinkRatesVariable);
  }
  return node;
}

// A live discovery of this machine reads the file MESHBENCH_LINK_RATES names (LiveDiscovery:
// the suite sanitizer builds run with slow unwinding, tests/CMakeLists.txt).
TEST(LiveDiscovery, ReadsTheLinkRateFileTheVariableNames) {
  const NodeTopology plain = discover_this_node(1);
  if (plain.nics.empty()) GTEST_SKIP() << "this machine shows no NIC to shape";
  const std::string host = this_host();
  ASSERT_FALSE(host.empty());
  const NodeTopology shaped = discover_with_rates(host + " " + plain.nics[0].name + " 2500000000\n", 1);
  ASSERT_EQ(shaped.nics.size(), plain.nics.size());
  EXPECT_DOUBLE_EQ(shaped.nics[0].speed_gbps, 0.3125);
  EXPECT_TRUE(std::any_of(shaped.notes.begin(), shaped.notes.end(),
                          [](const std::string& n) { return n.find("2.5 Gb/s (0.3125 GB/s)") != std::string::npos; }));
}

// The in-node line reaches the CPU slots a live discovery builds.
TEST(LiveDiscovery, TakesTheInNodeRateBetweenCpuSlots) {
  const std::string host = this_host();
  ASSERT_FALSE(host.empty());
  const NodeTopology shaped = discover_with_rates(host + " in-node 200000000\n", 2);
  if (shaped.slots.empty() || shaped.slots[0].kind != SlotKind::cpu) GTEST_SKIP() << "this machine's slots are GPUs";
  ASSERT_EQ(shaped.slot_count(), 2);
  EXPECT_DOUBLE_EQ(shaped.bandwidth(0, 1), 0.025);
  EXPECT_DOUBLE_EQ(shaped.bandwidth(1, 0), 0.025);
}

}  // namespace
}  // namespace meshbench::topology
