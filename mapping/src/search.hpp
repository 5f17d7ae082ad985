#pragma once
#include <vector>

#include "atoms.hpp"
#include "mapping/cost_model.hpp"

namespace meshbench::mapping::detail {

struct SearchResult {
  AtomPlacement placement;
  std::vector<int> slot_of_rank;
  Score score;
  int evaluations = 0;
};

// Steepest descent over block moves: swap two atoms of the placement (a whole digit of the rank
// numbering trades places with another, in every group at once), and, on nodes whose slots are
// not interchangeable, swap two local positions on every node. Swaps of two atoms that both lie
// above a node boundary are skipped on homogeneous clusters: they regroup nodes, which the model
// prices the same. Each structure is scored once, in `scratch`; at most `max_evaluations` are
// scored.
SearchResult local_search(const std::vector<Atom>& atoms, const AtomPlacement& seed, const Score& seed_score, const Layout& layout,
                          const FlatParallelGroups& groups, const topology::ClusterTopology& topology, const CostModel& model,
                          CostScratch& scratch, int max_evaluations);

// True when any two slots of the node are interchangeable for the model: one link class between
// every pair, and rails that are either all the same or disjoint and of one size.
bool symmetric_node(const topology::NodeTopology& node);

}  // namespace meshbench::mapping::detail
