#pragma once
#include <string>
#include <vector>

#include "mapping/plan.hpp"

namespace meshbench::mapping {

// Open MPI rankfile: "rank R=HOST slot=S:C", one line per logical rank; S is the NUMA node
// (socket) of the rank's GPU and C a core index on it, so each rank is bound next to its GPU.
std::string openmpi_rankfile(const PlanTopology& topology, const Mapping& mapping);
// SLURM_HOSTFILE for `srun --distribution=arbitrary`: line i is the host of logical rank i.
std::string slurm_hostfile(const PlanTopology& topology, const Mapping& mapping);
// Per node, the devices in local-rank order (ranks on a node numbered by increasing global rank,
// as mpirun and srun number them): CUDA_VISIBLE_DEVICES for that node.
std::vector<std::string> cuda_visible_devices(const PlanTopology& topology, const Mapping& mapping);
// Megatron-LM arguments for the layout, the order string, and how to get that order (default,
// --use-tp-pp-dp-mapping, or initialize_model_parallel(order=...)); says whether the mapping is
// a pure order or needs the rankfile / hostfile.
std::string megatron_arguments(const Plan& plan, const PlannedMapping& mapping);

// Writes rankfile, slurm_hostfile, cuda_visible_devices.txt and .sh (GPU slots) and
// megatron_args.txt into `dir` (created if missing). Refuses, before writing anything, when one
// of them exists and `force` is false. Returns the paths written.
std::vector<std::string> export_mapping(const Plan& plan, const PlannedMapping& mapping, const std::string& dir, bool force);

}  // namespace meshbench::mapping
