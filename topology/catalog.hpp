#pragma once
// The built-in catalog of GPU node types. AWS's topology files carry no NVLink information
// and the p5 file lists only the NICs, so a file plus its node type gives the full picture;
// a node type alone gives a synthetic node.
#include <string>
#include <string_view>
#include <vector>

#include "topology/machine.hpp"

namespace meshbench::topology {

// A group of devices that share one PCIe switch (or, without a switch, one CPU): this is
// what fixes GPU<->NIC affinity (the rails).
struct DeviceGroup {
  int numa = 0;            // position of the NUMA node (0, 1, ...)
  bool pci_switch = true;  // false: the devices hang directly off the CPU
  int gpus = 0;
  int nics = 0;
};

struct NodeType {
  std::string name;
  std::string gpu_model;
  int gpu_count = 0;
  int sm = 0;               // compute capability x10
  int nvlinks_per_gpu = 0;  // NVLinks from each GPU into the NVSwitch fabric; 0 = no NVLink
  NicKind nic_kind = NicKind::efa;
  int nic_count = 0;
  double nic_gbit = 0;     // line rate of one NIC, Gbit/s
  double pcie_gbps = 0;    // NCCL's bandwidth of one GPU/NIC/switch PCIe link, GB/s
  std::string cpu_vendor;  // CPUID vendor string
  int cpu_family = -1;
  int cpu_model = -1;
  std::string cpu_name;
  int numa_nodes = 2;
  std::vector<DeviceGroup> groups;
  std::string source;  // where the facts come from (also in comments beside the entry)

  double nic_speed_gbps() const { return nic_gbit / 8.0; }
};

const std::vector<NodeType>& node_types();
std::vector<std::string> node_type_names();
// InputError listing the known names when `name` is not one (case-insensitive).
const NodeType& find_node_type(std::string_view name);

// A synthetic node built from the catalog alone.
Machine machine_from_node_type(const NodeType& type);
// Completes a machine read from a file with what the node type knows: GPUs the file does not
// report (one per p5 switch), their model and NVLinks, NIC kind and line rate, CPU identity,
// unknown PCIe link speeds. The file's own facts win. InputError when the file's layout
// contradicts the node type (GPU count, PCIe groups).
void apply_node_type(Machine& machine, const NodeType& type);
// Catalog entries whose layout the machine's PCI tree fits (for suggestions in messages).
std::vector<std::string> node_types_matching(const Machine& machine);

}  // namespace meshbench::topology
