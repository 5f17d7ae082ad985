#include "search.hpp"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace meshbench::mapping::detail {

bool symmetric_node(const topology::NodeTopology& node) {
  const int n = node.slot_count();
  std::set<topology::LinkClass> classes;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a != b && !node.links.empty()) classes.insert(node.link(a, b));
    }
  }
  if (classes.size() > 1) return false;
  if (node.rails.empty()) return true;
  bool same = true, disjoint = true;
  std::set<int> seen;
  for (const auto& rail : node.rails) {
    same &= rail == node.rails.front();
    disjoint &= rail.size() == node.rails.front().size();
    for (int nic : rail) disjoint &= seen.insert(nic).second;
  }
  return same || disjoint;
}

SearchResult local_search(const std::vector<Atom>& atoms, const AtomPlacement& seed, const Score& seed_score, const Layout& layout,
                          const FlatParallelGroups& groups, const topology::ClusterTopology& topo, const CostModel& model,
                          CostScratch& scratch, int max_evaluations) {
  SearchResult best{seed, place(atoms, seed, topo), seed_score, 0};
  std::unordered_set<std::string> seen{structure_key(atoms, seed)};
  const bool homogeneous = topo.homogeneous() && topo.node_count() > 1;
  const int per_node = topo.node(0).slot_count();
  const bool local_moves = topo.homogeneous() && !seed.local_order.empty() && !symmetric_node(topo.node(0));

  for (;;) {
    std::vector<AtomPlacement> moves;
    const auto& order = best.placement.order;
    const int boundary = homogeneous ? node_boundary(atoms, order, per_node) : -1;
    for (std::size_t i = 0; i < order.size(); ++i) {
      for (std::size_t j = i + 1; j < order.size(); ++j) {
        const Atom &a = atoms[static_cast<std::size_t>(order[i])], &b = atoms[static_cast<std::size_t>(order[j])];
        if (a.digit == b.digit && a.size == b.size) continue;
        if (boundary >= 0 && static_cast<int>(i) >= boundary) continue;
        AtomPlacement m = best.placement;
        std::swap(m.order[i], m.order[j]);
        moves.push_back(std::move(m));
      }
    }
    if (local_moves) {
      for (int i = 0; i < per_node; ++i) {
        for (int j = i + 1; j < per_node; ++j) {
          AtomPlacement m = best.placement;
          std::swap(m.local_order[static_cast<std::size_t>(i)], m.local_order[static_cast<std::size_t>(j)]);
          moves.push_back(std::move(m));
        }
      }
    }
    SearchResult step = best;
    bool improved = false;
    for (auto& m : moves) {
      if (best.evaluations >= max_evaluations) break;
      if (!seen.insert(structure_key(atoms, m)).second) continue;
      auto slots = place(atoms, m, topo);
      const Score s = model.score(layout, groups, slots, scratch, node_aligned(atoms, m, topo));
      ++best.evaluations;
      // A strict improvement beyond rounding, so that equal-cost plateaus end the descent.
      if (s.total_us < step.score.total_us * (1 - 1e-9)) {
        step.placement = std::move(m);
        step.slot_of_rank = std::move(slots);
        step.score = s;
        improved = true;
      }
    }
    if (!improved) break;
    const int evaluations = best.evaluations;
    best = std::move(step);
    best.evaluations = evaluations;
    if (best.evaluations >= max_evaluations) break;
  }
  return best;
}

}  // namespace meshbench::mapping::detail
