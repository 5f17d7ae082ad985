#pragma once
#include <string>
#include <vector>

#include "topology/link_class.hpp"

namespace meshbench::topology {

enum class SlotKind { gpu, cpu };
enum class NicKind { efa, ib, eth, other };

std::string_view to_string(SlotKind kind);
std::string_view to_string(NicKind kind);

// One device a rank is bound to: a GPU where there are GPUs, otherwise an MPI rank's CPU slot.
struct Slot {
  int index = 0;  // local index on its node (the GPU index for GPUs)
  SlotKind kind = SlotKind::gpu;
  std::string pci;      // PCI bus id "dddd:bb:dd.f", empty for CPU slots
  int numa = -1;        // NUMA node, -1 when unknown
  std::string model;    // e.g. "NVIDIA H100 80GB HBM3", or the CPU model
  int pci_switch = -1;  // id of the lowest PCIe switch above it on this node, -1 when none
};

struct Nic {
  std::string name;  // e.g. "rdmap79s0", "mlx5_0", "eth0"
  NicKind kind = NicKind::other;
  std::string pci;
  int numa = -1;
  double speed_gbps = 0;  // line rate in GB/s (bytes), NCCL's unit: speed_Mbps / 8000
  int pci_switch = -1;
};

// One node's topology: its slots, NICs, and for every slot pair the link class and the
// expected bandwidth. Built from hwloc, an NCCL or hwloc XML file, or the node-type catalog.
struct NodeTopology {
  std::string hostname;            // for a node description built from a file: the file's name
  std::string node_type;           // catalog name when known, else empty
  std::string source;              // where it came from: "hwloc", "nccl-xml", "hwloc-xml", "catalog", ...
  std::string raw_xml;             // the XML it was built from, kept for the results file
  std::string cpu;                 // CPU model and NCCL's inter-socket class, e.g. "... (SKL, 10 GB/s between sockets)"
  std::vector<std::string> notes;  // what was assumed or not known (NIC speed defaulted, ...)
  int numa_nodes = 1;
  std::vector<Slot> slots;
  std::vector<Nic> nics;
  std::vector<LinkClass> links;         // slots × slots, row-major
  std::vector<double> bandwidth_gbps;   // slots × slots, row-major, GB/s
  std::vector<std::vector<int>> rails;  // per slot: indices of its nearest NIC(s)

  int slot_count() const { return static_cast<int>(slots.size()); }
  LinkClass link(int a, int b) const { return links[static_cast<std::size_t>(a) * slots.size() + b]; }
  double bandwidth(int a, int b) const { return bandwidth_gbps[static_cast<std::size_t>(a) * slots.size() + b]; }
  // Bandwidth of the slot's rail NICs together; what it can send off the node.
  double rail_bandwidth_gbps(int slot) const;
  // Sum of all NIC bandwidth on the node.
  double nic_bandwidth_gbps() const;
  // Two descriptions describe the same hardware layout (hostnames and raw XML aside).
  bool same_layout(const NodeTopology& other) const;
};

}  // namespace meshbench::topology
