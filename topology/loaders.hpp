#pragma once
// Reading a node's hardware tree from an NCCL topology XML, an hwloc XML, or the live node.
// All throw InputError (one line, naming the file and the way out) on bad input.
#include <string>

#include "topology/machine.hpp"

namespace meshbench::topology {

// An NCCL topology XML (<system>) or an hwloc XML (<topology>), told apart by content.
Machine load_topology_file(const std::string& path);

// The NCCL topology XML format, from text; `name` is used in messages and as the node name.
Machine parse_nccl_xml(const std::string& text, const std::string& name);

// An hwloc 2.x XML export, read through the hwloc library with I/O objects kept.
Machine load_hwloc_xml(const std::string& path);

// This node, discovered with hwloc (the same reader as hwloc XML), plus NIC line rates
// from sysfs and NVLinks from NVML when the NVIDIA driver is there.
Machine discover_local_machine();

}  // namespace meshbench::topology
