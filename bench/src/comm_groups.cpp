#include "bench/comm_groups.hpp"

#include "bench/runner.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace meshbench::bench {

std::vector<CommGroup> dimension_communicators(const mapping::Mapping& m, mapping::Dim dim, const std::vector<int>& slot_of_world_rank) {
  std::vector<int> world_of_slot(slot_of_world_rank.size(), -1);
  for (std::size_t w = 0; w < slot_of_world_rank.size(); ++w) {
    const int slot = slot_of_world_rank[w];
    if (slot < 0 || static_cast<std::size_t>(slot) >= world_of_slot.size() || world_of_slot[static_cast<std::size_t>(slot)] >= 0) {
      throw std::invalid_argument("slot_of_world_rank is not a permutation (slot " + std::to_string(slot) + ")");
    }
    world_of_slot[static_cast<std::size_t>(slot)] = static_cast<int>(w);
  }
  std::vector<CommGroup> out;
  for (const auto& logical_group : measured_groups(m, dim)) {
    CommGroup g;
    for (int logical : logical_group) {
      g.world_ranks.push_back(world_of_slot.at(static_cast<std::size_t>(m.slot_of_rank.at(static_cast<std::size_t>(logical)))));
    }
    out.push_back(std::move(g));
  }
  return out;
}

NcclMembership nccl_membership(std::span<const int> group_world_ranks, int my_world_rank) {
  NcclMembership m;
  m.nranks = static_cast<int>(group_world_ranks.size());
  const auto it = std::find(group_world_ranks.begin(), group_world_ranks.end(), my_world_rank);
  if (it != group_world_ranks.end()) m.rank = static_cast<int>(it - group_world_ranks.begin());
  m.id_root = 0;
  if (!group_world_ranks.empty()) m.id_root_world = group_world_ranks.front();
  return m;
}

}  // namespace meshbench::bench
