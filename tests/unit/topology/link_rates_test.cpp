// The link rate file (slurm/localcluster/up.sh writes one, MESHBENCH_LINK_RATES names it):
// live discovery takes a shaped NIC's line rate from it, and says so in the node's notes; a
// file it cannot use is a note, never an error.
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
  // The node after the file at `path`, and its notes joined.
  NodeTopology apply(const std::string& path, std::string& notes) {
    Machine m = emulated_node();
    apply_link_rates(m, path, "mbn-t-n0");
    NodeTopology n = build_cpu_node(m, {0, 0});
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

// A live discovery of this machine reads the file MESHBENCH_LINK_RATES names (LiveDiscovery:
// the suite sanitizer builds run with slow unwinding, tests/CMakeLists.txt).
TEST(LiveDiscovery, ReadsTheLinkRateFileTheVariableNames) {
  const NodeTopology plain = discover_this_node(1);
  if (plain.nics.empty()) GTEST_SKIP() << "this machine shows no NIC to shape";
  char host[HOST_NAME_MAX + 1] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  const test_support::ScratchDir dir("link-rates");
  const std::string path = (dir / "link_rates").string();
  std::ofstream(path) << host << " " << plain.nics[0].name << " 2500000000\n";
  const char* before = std::getenv(kLinkRatesVariable);
  const std::optional<std::string> saved = before != nullptr ? std::optional<std::string>(before) : std::nullopt;
  setenv(kLinkRatesVariable, path.c_str(), 1);
  const NodeTopology shaped = discover_this_node(1);
  if (saved) {
    setenv(kLinkRatesVariable, saved->c_str(), 1);
  } else {
    unsetenv(kLinkRatesVariable);
  }
  ASSERT_EQ(shaped.nics.size(), plain.nics.size());
  EXPECT_DOUBLE_EQ(shaped.nics[0].speed_gbps, 0.3125);
  EXPECT_TRUE(std::any_of(shaped.notes.begin(), shaped.notes.end(),
                          [](const std::string& n) { return n.find("2.5 Gb/s (0.3125 GB/s)") != std::string::npos; }));
}

}  // namespace
}  // namespace meshbench::topology
