// Scoring only reads the model: two threads scoring different placements on one model at once,
// each with its own scratch, get exactly what one thread gets scoring them in turn. Equality is
// exact (the same arithmetic in the same order), and nothing here depends on timing: the threads
// start together and each scores its list many times, so that a shared buffer would be written
// by both while the other reads it.
#include <gtest/gtest.h>

#include <latch>
#include <numeric>
#include <thread>

#include "mapping/cost_model.hpp"
#include "mapping/src/atoms.hpp"
#include "mapping/src/random_placement.hpp"
#include "synthetic_nodes.hpp"

namespace meshbench::mapping {

namespace {

using testing::make_node;

void expect_identical(const std::vector<Profile>& a, const std::vector<Profile>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].alpha_us, b[i].alpha_us) << what;
    EXPECT_EQ(a[i].us_per_byte, b[i].us_per_byte) << what;
  }
}

void expect_identical(const Score& a, const Score& b, const std::string& what) {
  EXPECT_EQ(a.total_us, b.total_us) << what;
  for (Dim d : kAllDims) {
    const std::string dim = what + " " + std::string(to_string(d));
    EXPECT_EQ(a[d], b[d]) << dim;
    const DimShape &x = a.of(d), &y = b.of(d);
    EXPECT_EQ(x.group_size, y.group_size) << dim;
    EXPECT_EQ(x.groups, y.groups) << dim;
    EXPECT_EQ(x.crosses_nodes, y.crosses_nodes) << dim;
    EXPECT_EQ(x.max_nodes_per_group, y.max_nodes_per_group) << dim;
    EXPECT_EQ(x.max_nic_flows, y.max_nic_flows) << dim;
    EXPECT_EQ(x.worst_link, y.worst_link) << dim;
    expect_identical(x.ring, y.ring, dim + " ring");
    expect_identical(x.all_to_all, y.all_to_all, dim + " all-to-all");
    expect_identical(x.send_recv, y.send_recv, dim + " send/recv");
  }
}

struct Placement {
  std::vector<int> slot_of_rank;
  bool node_symmetric = false;
};

// Shared NICs under PCIe switches, so that NIC, switch and node counts all matter; a workload
// (the default MoE model) with every op family, so that ring, all-to-all and send/recv pricing all run.
struct SharedNicCluster {
  topology::ClusterTopology topo = topology::ClusterTopology::replicate(
      make_node({.gpus = 8, .nics = 4, .nic_gbps = 12.5, .nvl_gbps = 150, .numa = 2, .nvlink = true, .gpus_per_switch = 2}), 4);
  Layout layout{.world = 32, .tp = 2, .cp = 2, .pp = 2, .ep = 2};
  FlatParallelGroups groups = flat_rank_groups(layout);
  CostModel model{topo, default_cost_params(topo), Workload{}};

  // Random placements (the full pass) and every node-aligned block placement (node 0's pass).
  std::vector<Placement> placements() const {
    std::vector<Placement> out;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) out.push_back({detail::random_placement(layout.world, seed), false});
    const auto atoms = detail::rank_atoms(layout);
    std::vector<int> order(atoms.size());
    std::iota(order.begin(), order.end(), 0);
    do {
      const detail::AtomPlacement p{order, {}};
      if (detail::node_aligned(atoms, p, topo)) out.push_back({detail::place(atoms, p, topo), true});
    } while (std::next_permutation(order.begin(), order.end()) && out.size() < 16);
    return out;
  }
};

}  // namespace

TEST(ConcurrentScore, TwoThreadsGetTheSequentialScores) {
  const SharedNicCluster c;
  const auto placements = c.placements();
  ASSERT_GT(placements.size(), 8U);
  ASSERT_TRUE(std::any_of(placements.begin(), placements.end(), [](const Placement& p) { return p.node_symmetric; }));
  std::vector<Score> sequential;
  for (const auto& p : placements) sequential.push_back(c.model.score(c.layout, c.groups, p.slot_of_rank, p.node_symmetric));
  // The placements differ in price, so a thread that read the other's counts would show.
  EXPECT_NE(sequential.front().total_us, sequential.back().total_us);

  constexpr int kRepeats = 1000;
  std::latch start(2);
  // Thread t scores placements t, t+2, t+4, ... kRepeats times; the last round's scores are kept
  // and every round's are compared, so that a difference in any round is counted.
  std::array<std::vector<Score>, 2> last;
  std::array<int, 2> mismatches{};
  auto work = [&](int t) {
    CostScratch scratch;
    start.arrive_and_wait();
    for (int round = 0; round < kRepeats; ++round) {
      last[static_cast<std::size_t>(t)].clear();
      for (std::size_t i = static_cast<std::size_t>(t); i < placements.size(); i += 2) {
        const Score s = c.model.score(c.layout, c.groups, placements[i].slot_of_rank, scratch, placements[i].node_symmetric);
        if (s.total_us != sequential[i].total_us) ++mismatches[static_cast<std::size_t>(t)];
        last[static_cast<std::size_t>(t)].push_back(s);
      }
    }
  };
  std::thread a(work, 0), b(work, 1);
  a.join();
  b.join();
  EXPECT_EQ(mismatches[0], 0);
  EXPECT_EQ(mismatches[1], 0);
  for (int t = 0; t < 2; ++t) {
    const auto& got = last[static_cast<std::size_t>(t)];
    for (std::size_t k = 0; k < got.size(); ++k) {
      const std::size_t i = static_cast<std::size_t>(t) + 2 * k;
      expect_identical(got[k], sequential[i], "thread " + std::to_string(t) + " placement " + std::to_string(i));
    }
  }
}

// One scratch handed to models of different sizes fits itself to each and leaves no counts
// behind: each score equals the same model's score with a fresh scratch.
TEST(ConcurrentScore, OneScratchServesModelsOfDifferentSizes) {
  const auto node = make_node({.gpus = 8, .nics = 4, .nic_gbps = 12.5, .nvl_gbps = 150, .numa = 2, .nvlink = true, .gpus_per_switch = 2});
  const auto small = topology::ClusterTopology::replicate(node, 2);
  const auto large = topology::ClusterTopology::replicate(node, 8);
  const CostModel small_model(small, default_cost_params(small));
  const CostModel large_model(large, default_cost_params(large));
  const Layout small_layout{.world = 16, .tp = 2, .pp = 2, .ep = 2};
  const Layout large_layout{.world = 64, .tp = 2, .pp = 2, .ep = 2};
  const auto small_groups = flat_rank_groups(small_layout);
  const auto large_groups = flat_rank_groups(large_layout);
  const auto small_slots = detail::random_placement(16, 7);
  const auto large_slots = detail::random_placement(64, 7);
  CostScratch scratch;
  for (int round = 0; round < 3; ++round) {
    expect_identical(large_model.score(large_layout, large_groups, large_slots, scratch),
                     large_model.score(large_layout, large_groups, large_slots), "large, round " + std::to_string(round));
    expect_identical(small_model.score(small_layout, small_groups, small_slots, scratch),
                     small_model.score(small_layout, small_groups, small_slots), "small, round " + std::to_string(round));
  }
}

}  // namespace meshbench::mapping
