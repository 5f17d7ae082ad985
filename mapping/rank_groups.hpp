#pragma once
#include <array>
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

// Megatron-Core's RankGenerator for both grids: dense TP×CP×DP×PP and expert ETP×EP×EDP×PP,
// with its validity rules. Pure: no I/O. Throws InputError naming the rule a layout breaks.
ParallelGroups rank_groups(const Layout& layout);

// generate_masked_orthogonal_rank_groups: `sizes` in order (first fastest), `mask` selects the
// dimensions that vary inside a group.
RankGroups masked_orthogonal_groups(const std::vector<int>& sizes, const std::vector<bool>& mask);

}  // namespace meshbench::mapping
