#pragma once
// The hardware tree every source is read into before it becomes a NodeTopology: NUMA domains
// (NCCL's <cpu>), the PCIe switches NCCL would see under them, the endpoints (GPUs, NICs,
// NVSwitches) and the NVLinks. NCCL XML, hwloc XML, live hwloc discovery and the node-type
// catalog all fill this one shape, so one function classifies every slot pair.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topology/node.hpp"

namespace meshbench::topology {

// One NUMA domain with the CPU identity NCCL needs for the inter-socket bandwidth.
struct CpuDomain {
  int numa = 0;            // NUMA node id (NCCL numaid, hwloc os_index)
  std::string arch;        // "x86_64", "arm64", "ppc64"; empty when the source does not say
  std::string vendor;      // "GenuineIntel", "AuthenticAMD"; empty when unknown
  int family = -1;         // CPUID family, -1 when unknown
  int model = -1;          // CPUID model, -1 when unknown
  std::string model_name;  // e.g. "Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz"
};

enum class PciKind : std::uint8_t {
  pci_switch,  // a PCIe switch as NCCL sees it (the upstream port; NCCL skips the downstream port)
  gpu,
  nic,
  nvswitch,
  unknown,  // a leaf the source gives only by bus id (AWS's p5 and g5 files)
  other,    // storage and the like: kept for completeness, never on a path
};

// One port of a NIC: NCCL's <net>. A multi-port NIC has several.
struct NetPort {
  std::string name;       // "rdmap79s0", "mlx5_0"
  int dev = -1;           // NCCL net device index when the source gives it
  double speed_gbps = 0;  // GB/s; 0 = not known
};

struct PciDevice {
  PciKind kind = PciKind::other;
  std::string busid;     // "dddd:bb:dd.f"; empty when the source does not report it
  int parent = -1;       // index of the switch above it in Machine::pci; -1 = attached to the CPU
  int cpu = 0;           // index into Machine::cpus; -1 = no NUMA affinity (a virtual NIC)
  double link_gbps = 0;  // bandwidth of the link to the parent, GB/s, by NCCL's rule
  std::uint16_t vendor = 0;
  std::uint16_t device = 0;
  std::uint32_t class_id = 0;  // 24-bit class code, e.g. 0x030200; 0 when unknown
  // GPU
  std::string model;
  int sm = 0;          // compute capability x10; 0 = unknown
  int gpu_index = -1;  // NVML/NCCL index when the source gives it
  // NIC
  NicKind nic_kind = NicKind::other;
  std::vector<NetPort> ports;  // empty = one port of unknown name and speed
};

// NVLinks from a GPU: to another GPU, or to the NVSwitch fabric (NCCL folds all NVSwitches
// into one node). `count` links of the GPU's NVLink generation.
struct NvLink {
  int gpu = 0;    // index into Machine::pci
  int peer = -1;  // index into Machine::pci of the peer GPU; -1 = the NVSwitch fabric
  int count = 0;
};

struct Machine {
  std::string name;       // hostname, or the file name
  std::string source;     // "nccl-xml", "hwloc-xml", "hwloc", "catalog", "nccl-xml+catalog", ...
  std::string node_type;  // catalog name once one is applied
  std::string product;    // DMI product name when the source gives it (EC2 instance type)
  std::string raw_xml;
  std::vector<CpuDomain> cpus;
  std::vector<PciDevice> pci;
  std::vector<NvLink> nvlinks;
  // GB/s of the path between two CPU slots, when it is shaped to a rate (a link rate file's
  // in-node line, apply_link_rates): build_cpu_node's bandwidth between distinct slots.
  std::optional<double> in_node_gbps;
  std::vector<std::string> notes;  // what was assumed or missing, for the reader

  int count(PciKind kind) const;
  std::vector<int> indices(PciKind kind) const;
  // Index of the CPU domain with that NUMA id, -1 when none.
  int cpu_of_numa(int numa) const;
};

// Classify every slot pair and compute bandwidths and rails by NCCL's path rules.
// Slots are the GPUs (ordered by NVML index, else bus id, else as listed).
NodeTopology build_gpu_node(const Machine& machine);
// A node without GPUs: one CPU slot per entry of `slot_numa` (the NUMA node each rank is
// bound to, -1 when unknown). Distinct slots reach each other at the machine's in_node_gbps
// when it has one.
NodeTopology build_cpu_node(const Machine& machine, const std::vector<int>& slot_numa);

}  // namespace meshbench::topology
