#pragma once
#include <span>
#include <vector>

#include "mapping/mapping.hpp"

namespace meshbench::bench {

// Which ranks form which communicator. The runner splits the world by group (color) and by the
// rank's position in Megatron's group list (key), so a communicator's rank order is the group
// list's order. Backends that build their own communicators (NCCL) follow the same order, so
// that op_layout's group-local ranks mean the same in every backend.

// One communicator of a dimension: its members as world ranks, in communicator rank order.
struct CommGroup {
  std::vector<int> world_ranks;
};

// Every communicator of `dim` under mapping `m`, when world rank w sits on slot
// slot_of_world_rank[w] (the process on a slot plays the logical rank the mapping gives it).
std::vector<CommGroup> dimension_communicators(const mapping::Mapping& m, mapping::Dim dim, const std::vector<int>& slot_of_world_rank);

// One rank's part in its NCCL communicator, from its MPI group's members (world ranks in MPI
// group rank order): NCCL rank = MPI group rank, and the group's rank 0 creates the unique id
// that the group's MPI communicator broadcasts.
struct NcclMembership {
  int nranks = 0;
  int rank = -1;           // this rank's NCCL rank; -1 when it is not a member
  int id_root = 0;         // group rank that calls ncclGetUniqueId (the broadcast's root)
  int id_root_world = -1;  // that rank as a world rank, for messages
};
NcclMembership nccl_membership(std::span<const int> group_world_ranks, int my_world_rank);

}  // namespace meshbench::bench
