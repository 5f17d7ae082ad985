#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "topology/cluster.hpp"

namespace meshbench::topology {

// The readable summary of `meshbench topo`: per distinct layout its slots, NICs, NUMA split
// and slot x slot link classes and bandwidths; identical nodes are listed once.
void print_topology_text(std::ostream& out, const ClusterTopology& cluster, const std::vector<std::string>& warnings,
                         const std::vector<int>& slot_of_rank);

}  // namespace meshbench::topology
