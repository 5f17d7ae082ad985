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
// from sysfs (or from the file kLinkRatesVariable names) and NVLinks from NVML when the
// NVIDIA driver is there.
Machine discover_local_machine();

// The environment variable that names a link rate file: the rates a shaper gave this node's
// NICs, which sysfs does not show (the local test cluster's up.sh writes one; docs/slurm.md).
inline constexpr const char* kLinkRatesVariable = "MESHBENCH_LINK_RATES";

// The interface column's word for the path between two CPU slots of one node (rank to rank
// inside the node) in a link rate file: no NIC.
inline constexpr const char* kInNodeLink = "in-node";

// Applies a link rate file to `machine`, the node called `host`: lines "HOST INTERFACE
// BITS_PER_SECOND" ('#' starts a comment; 0 bit/s: the link is not shaped). The NICs named on
// `host`'s lines take that line rate, replacing sysfs's, and a note says where it came from.
// A line "HOST in-node BITS_PER_SECOND" gives the rate of the in-node path instead
// (Machine::in_node_gbps: build_cpu_node's bandwidth between distinct CPU slots; GPU slots keep
// NCCL's paths). Never throws: a file that cannot be read, a malformed line, no line for `host`
// or an interface the node lacks is one note, and the rates stay as discovered.
void apply_link_rates(Machine& machine, const std::string& path, const std::string& host);

}  // namespace meshbench::topology
