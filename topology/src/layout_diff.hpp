#pragma once
#include <string>

#include "topology/node.hpp"

namespace meshbench::topology {

// How layout `b` differs from `a`, in a few words ("4 slots vs 8; NIC speed 12.5 vs 25 GB/s").
std::string describe_layout_difference(const NodeTopology& a, const NodeTopology& b);

}  // namespace meshbench::topology
