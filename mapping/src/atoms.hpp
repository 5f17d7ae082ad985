// Placements built from blocks of the rank numbering. Both grids number ranks in mixed radix
// (first name fastest); where their breakpoints form one chain, the rank splits into digits
// that each belong to one dense and one expert dimension, and each digit into prime "atoms".
// Listing the atoms innermost first gives a placement: consecutive slots (a node, a PCIe
// switch) take the innermost atoms. Orders, the topology-aware heuristics and the search all
// move whole atoms, so a placement of 65,536 ranks is a list of ~20 atoms, not 65,536 swaps.
#pragma once
#include <string>
#include <vector>

#include "mapping/layout.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping::detail {

struct Atom {
  int digit = 0;  // which digit of the rank it belongs to
  int size = 1;
  int stride = 1;  // value = (rank / stride) % size
  Dim dense = Dim::tp;
  Dim expert = Dim::etp;
};

// The atoms of a layout's rank numbering, innermost (smallest stride) first.
std::vector<Atom> rank_atoms(const Layout& layout);

// A placement as atom positions: order[k] is the atom at slot digit k (innermost first);
// within a node, position p goes to the node's p-th slot of `local_order`.
struct AtomPlacement {
  std::vector<int> order;
  std::vector<int> local_order;  // per local position: the node's slot index (homogeneous nodes)
};

// slot_of_rank for that placement; linear in the world size.
std::vector<int> place(const std::vector<Atom>& atoms, const AtomPlacement& placement, const topology::ClusterTopology& topology);

// The node's slots grouped by NUMA node, PCIe switch and NIC rail, so that consecutive
// positions share the closest hardware.
std::vector<int> topology_local_order(const topology::NodeTopology& node);

// The position after which every atom of the placement lies above the node boundary, or -1
// when no prefix of it fills exactly one node.
int node_boundary(const std::vector<Atom>& atoms, const std::vector<int>& order, int slots_per_node);

// True when the placement is node-symmetric for CostModel::score: alike nodes and inner atoms
// that fill a node exactly.
bool node_aligned(const std::vector<Atom>& atoms, const AtomPlacement& placement, const topology::ClusterTopology& topology);

// A key equal for atom orders that give the same structure (atoms of one digit and size are
// interchangeable), so the search evaluates each structure once.
std::string structure_key(const std::vector<Atom>& atoms, const AtomPlacement& placement);

}  // namespace meshbench::mapping::detail
