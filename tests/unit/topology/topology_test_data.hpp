#pragma once
// Helpers shared by the topology unit tests: paths into tests/data and one-line loaders.
#include <string>

#include "topology/catalog.hpp"
#include "topology/loaders.hpp"
#include "topology/machine.hpp"

namespace meshbench::topology::test {

inline std::string data(const std::string& relative) { return std::string(MESHBENCH_TEST_DATA) + "/" + relative; }

inline const std::string kP4d = "nccl-topo/p4d-24xl-topo.xml";
inline const std::string kP4de = "nccl-topo/p4de-24xl-topo.xml";
inline const std::string kP5 = "nccl-topo/p5.48xl-topo.xml";
inline const std::string kDgx2 = "hwloc-xml/nvidiaDGX2.xml";
inline const std::string kG4dn = "hwloc-xml/g4dnmetal.xml";

// A file, optionally completed by a node type, as one node.
inline NodeTopology node_from(const std::string& file, const std::string& node_type = "") {
  Machine m = load_topology_file(data(file));
  if (!node_type.empty()) apply_node_type(m, find_node_type(node_type));
  return build_gpu_node(m);
}

}  // namespace meshbench::topology::test
