// Node descriptions built by hand for the mapping tests, so that they do not depend on the
// topology loaders: link classes, bandwidths, NICs and rails set directly.
#pragma once
#include <string>
#include <vector>

#include "topology/cluster.hpp"

namespace meshbench::mapping::testing {

struct NodeSpec {
  int gpus = 8;
  int nics = 32;
  double nic_gbps = 12.5;
  double nvl_gbps = 370;
  int numa = 2;
  bool nvlink = true;       // all pairs NVL; otherwise PCIe classes from the switch layout
  int gpus_per_switch = 1;  // GPUs (and their NICs) under one PCIe switch
};

// GPU g sits under switch g / gpus_per_switch; NICs are spread evenly over the switches and a
// GPU's rail is the NICs under its switch when there are fewer NICs than GPUs, else its own
// nics/gpus NICs.
topology::NodeTopology make_node(const NodeSpec& spec, const std::string& hostname = "node");

// p5.48xlarge-like: 8 H100 all-pairs NVLink, 32 EFA NICs of 12.5 GB/s (4 per GPU), 2 NUMA nodes.
inline topology::NodeTopology p5_node() { return make_node({}, "p5"); }

}  // namespace meshbench::mapping::testing
