#pragma once
// The cluster as the running job finds it, under MPI. Apart from topology/options.hpp so that the
// commands that read a topology offline (plan, explore, predict) never see MPI's headers.
#include <mpi.h>

#include <string>
#include <vector>

#include "topology/cluster.hpp"

namespace meshbench::topology {

// Collective over `comm`: every rank reports its host, slot and node; rank 0 assembles and
// broadcasts. A node is the ranks of one host (mpi::split_by_host).
struct LiveCluster {
  ClusterTopology topology;
  std::vector<int> slot_of_rank;      // world rank -> slot
  std::vector<std::string> warnings;  // e.g. nodes whose layouts differ
};
LiveCluster discover_cluster(MPI_Comm comm);

}  // namespace meshbench::topology
