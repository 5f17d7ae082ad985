#pragma once
#include <optional>
#include <string>
#include <vector>

#include "common/cli.hpp"
#include "topology/cluster.hpp"

namespace meshbench::topology {

// The options every subcommand that needs a topology takes.
struct TopologyOptions {
  std::string file;       // --topology FILE: NCCL or hwloc XML, told apart by content
  std::string node_type;  // --node-type NAME: a catalog entry
  int nodes = 0;          // --nodes N: how many such nodes; 0 = not given
  bool given() const { return !file.empty() || !node_type.empty() || nodes != 0; }
};

void add_topology_options(po::options_description& options, TopologyOptions& values);

// The topology the options describe, built offline (no MPI). InputError on a missing or
// malformed file, an unknown node type, --nodes < 1, or no GPUs where `require_gpus`.
ClusterTopology load_offline_topology(const TopologyOptions& options, bool require_gpus);

// This node alone, discovered with hwloc; without GPUs, `cpu_slots` CPU slots.
NodeTopology discover_this_node(int cpu_slots);

// True when this process was started by mpirun or srun with an MPI plugin (so MPI_Init joins a
// real job); false for a process started alone. Throws InputError for a multi-task srun step
// without an MPI plugin, whose tasks could not find each other.
bool launched_by_mpi_launcher();
// This process's rank as the launcher set it in the environment, 0 when not launched; lets a
// command that needs no MPI print only once under mpirun/srun.
int launcher_rank();

}  // namespace meshbench::topology
