// The node-0 pricing of node-symmetric placements must equal the full pass: every block
// placement whose inner blocks fill a node is scored both ways, on nodes with private NICs
// (p5), shared NICs (p4d-like) and PCIe-only links with switch contention.
#include <gtest/gtest.h>

#include <numeric>

#include "mapping/cost_model.hpp"
#include "mapping/src/atoms.hpp"
#include "synthetic_nodes.hpp"

namespace meshbench::mapping {

namespace {

using testing::make_node;

void expect_same(const Score& a, const Score& b, const std::string& what) {
  for (Dim d : kAllDims) {
    EXPECT_NEAR(a[d], b[d], 1e-9 * std::max(1.0, a[d])) << what << " " << to_string(d);
    EXPECT_EQ(a.of(d).crosses_nodes, b.of(d).crosses_nodes) << what << " " << to_string(d);
    EXPECT_EQ(a.of(d).max_nodes_per_group, b.of(d).max_nodes_per_group) << what << " " << to_string(d);
    EXPECT_EQ(a.of(d).max_nic_flows, b.of(d).max_nic_flows) << what << " " << to_string(d);
    EXPECT_EQ(a.of(d).worst_link, b.of(d).worst_link) << what << " " << to_string(d);
  }
  EXPECT_NEAR(a.total_us, b.total_us, 1e-9 * a.total_us) << what;
}

void check_all_placements(const topology::NodeTopology& node, int nodes, const Layout& layout, bool contention) {
  const auto topo = topology::ClusterTopology::replicate(node, nodes);
  CostParams p = default_cost_params(topo);
  p.contention = contention;
  Workload w;
  w.experts = layout.ep > 1 ? 8 : 0;
  w.top_k = 1;
  const CostModel sweep(topo, p);
  const CostModel step(topo, p, w);
  const auto groups = flat_rank_groups(layout);
  const auto atoms = detail::rank_atoms(layout);
  std::vector<int> order(atoms.size());
  std::iota(order.begin(), order.end(), 0);
  std::vector<int> local(static_cast<std::size_t>(node.slot_count()));
  std::iota(local.begin(), local.end(), 0);
  std::reverse(local.begin(), local.end());  // a non-identity local order as well
  int aligned = 0;
  do {
    for (const auto& local_order : {std::vector<int>{}, local}) {
      const detail::AtomPlacement placement{order, local_order};
      if (!detail::node_aligned(atoms, placement, topo)) continue;
      ++aligned;
      const auto slots = detail::place(atoms, placement, topo);
      for (const CostModel* m : {&sweep, &step}) {
        expect_same(m->score(layout, groups, slots, true), m->score(layout, groups, slots, false),
                    "placement " + detail::structure_key(atoms, placement));
      }
    }
  } while (std::next_permutation(order.begin(), order.end()));
  EXPECT_GT(aligned, 0);
}

}  // namespace

TEST(SymmetricScore, PrivateNics) {
  check_all_placements(testing::p5_node(), 4, {.world = 32, .tp = 2, .cp = 1, .pp = 2, .ep = 4, .etp = 1}, true);
}

TEST(SymmetricScore, SharedNics) {
  const auto node = make_node({.gpus = 8, .nics = 4, .nic_gbps = 12.5, .nvl_gbps = 150, .numa = 2, .nvlink = true, .gpus_per_switch = 2});
  check_all_placements(node, 4, {.world = 32, .tp = 2, .cp = 2, .pp = 2, .ep = 2}, true);
  check_all_placements(node, 4, {.world = 32, .tp = 2, .cp = 2, .pp = 2, .ep = 2}, false);
}

TEST(SymmetricScore, PcieOnlyNodes) {
  const auto node = make_node({.gpus = 4, .nics = 1, .nic_gbps = 12.5, .nvl_gbps = 0, .numa = 2, .nvlink = false, .gpus_per_switch = 2});
  check_all_placements(node, 4, {.world = 16, .tp = 2, .cp = 1, .pp = 2, .ep = 2}, true);
}

}  // namespace meshbench::mapping
