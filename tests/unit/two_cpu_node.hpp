#pragma once
// A node of two CPU slots (LOC on the diagonal, PHB between them), the smallest topology a
// results file can hold: shared by the results and analysis unit tests that write such files.
#include <string>

#include "topology/node.hpp"

namespace meshbench::test_support {

inline topology::NodeTopology two_cpu_node(const std::string& hostname) {
  topology::NodeTopology n;
  n.hostname = hostname;
  n.source = "test";
  n.slots = {{0, topology::SlotKind::cpu, "", 0, "cpu", -1}, {1, topology::SlotKind::cpu, "", 0, "cpu", -1}};
  n.links = {topology::LinkClass::LOC, topology::LinkClass::PHB, topology::LinkClass::PHB, topology::LinkClass::LOC};
  n.bandwidth_gbps = {5000, 10, 10, 5000};
  n.rails = {{}, {}};
  return n;
}

}  // namespace meshbench::test_support
