#pragma once
#include <array>
#include <span>
#include <vector>

#include "mapping/layout.hpp"

namespace meshbench::mapping {

// A dimension's groups: each a list of logical ranks, groups and ranks within a group in
// Megatron-Core's order (the position in the list is the group-local rank).
using RankGroups = std::vector<std::vector<int>>;

struct ParallelGroups {
  std::array<RankGroups, kAllDims.size()> by_dim;
  const RankGroups& operator[](Dim dim) const { return by_dim[static_cast<std::size_t>(dim)]; }
  RankGroups& operator[](Dim dim) { return by_dim[static_cast<std::size_t>(dim)]; }
};

// The same groups stored flat: all groups of a dimension have one size, so group g is
// ranks[g*size, (g+1)*size). One allocation per dimension keeps 65,536-rank layouts cheap.
struct FlatGroups {
  int size = 1;
  std::vector<int> ranks;
  std::vector<int> group_of_rank;  // rank -> index of its group
  int count() const { return size == 0 ? 0 : static_cast<int>(ranks.size()) / size; }
  std::span<const int> group(int g) const {
    return {ranks.data() + static_cast<std::size_t>(g) * static_cast<std::size_t>(size), static_cast<std::size_t>(size)};
  }
  RankGroups nested() const;
};

struct FlatParallelGroups {
  std::array<FlatGroups, kAllDims.size()> by_dim;
  // Megatron's dp-cp group: where the dense gradients are reduced when CP > 1 (equal to dp
  // when CP = 1).
  FlatGroups dp_cp;
  const FlatGroups& operator[](Dim dim) const { return by_dim[static_cast<std::size_t>(dim)]; }
};

// Megatron-Core's RankGenerator for both grids: dense TP×CP×DP×PP and expert ETP×EP×EDP×PP,
// with its validity rules. Pure: no I/O. Throws InputError naming the rule a layout breaks.
ParallelGroups rank_groups(const Layout& layout);
FlatParallelGroups flat_rank_groups(const Layout& layout);

// generate_masked_orthogonal_rank_groups: `sizes` in order (first fastest), `mask` selects the
// dimensions that vary inside a group.
FlatGroups masked_orthogonal_groups_flat(const std::vector<int>& sizes, const std::vector<bool>& mask);

// One of the two grids RankGenerator builds from the order string.
enum class Grid { dense, expert };
struct Axis {
  Dim dim;  // on the expert grid: etp, ep, edp, pp (and cp of size 1)
  int size;
};
// The grid's axes, first fastest: the order's names plus the size-1 names RankGenerator
// appends. Throws InputError like rank_groups for an order it would refuse.
std::vector<Axis> grid_axes(const Layout& layout, Grid grid);

}  // namespace meshbench::mapping
