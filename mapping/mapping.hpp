#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "mapping/layout.hpp"
#include "mapping/rank_groups.hpp"

namespace meshbench::mapping {

// Layout + order + placement. The placement maps each logical rank (as the training framework
// numbers it) to a physical slot (node-major numbering of the topology).
struct Mapping {
  std::string name;  // stable and readable: says how it was made
  std::string how;   // one sentence on how it was made
  Layout layout;
  std::vector<int> slot_of_rank;     // logical rank -> slot; a permutation of 0..W-1
  ParallelGroups groups;             // logical rank groups (from layout)
  std::vector<std::string> aliases;  // names of other candidates that turned out to be this one

  // A dimension's groups in slots.
  RankGroups slot_groups(Dim dim) const;
  // True when the placement is the identity: Megatron's order alone gives this mapping.
  bool identity_placement() const;
};

// Builds a mapping, computing its groups; throws InputError when the placement is not a
// permutation of the layout's world.
Mapping make_mapping(std::string name, std::string how, const Layout& layout, std::vector<int> slot_of_rank);

// Throws InputError unless `slot_of_rank` is a permutation of 0..world-1.
void check_permutation(const std::string& name, int world, std::span<const int> slot_of_rank);

// Two mappings are the same mapping when every dimension's slot group sets are equal (order
// inside and between groups ignored).
bool same_structure(const Mapping& a, const Mapping& b);
// 64-bit digest of those canonical group sets: equal structures have equal digests, so it keys
// deduplication and lets `compare` match mappings of two runs by structure, not by name.
std::uint64_t structure_digest(const Mapping& mapping);

// The canonical form both use, per dimension: label[slot] = the smallest slot of the slot's
// group. Two group sets are equal exactly when their label arrays are equal.
std::vector<int> group_labels(const FlatGroups& groups, std::span<const int> slot_of_rank);
// FNV-1a (64-bit, over 32-bit words) of the label arrays of every dimension in kAllDims order.
std::uint64_t structure_digest(const FlatParallelGroups& groups, std::span<const int> slot_of_rank);

}  // namespace meshbench::mapping
