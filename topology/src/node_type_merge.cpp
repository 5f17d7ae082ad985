// Node types as machines: a synthetic node from the catalog, and a file completed by its
// node type (the file gives bus ids, PCI tree and NUMA; the node type what the file lacks).
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "common/error.hpp"
#include "topology/catalog.hpp"

namespace meshbench::topology {

namespace {

CpuDomain cpu_of_type(const NodeType& type, int numa) {
  return CpuDomain{numa, "x86_64", type.cpu_vendor, type.cpu_family, type.cpu_model, type.cpu_name};
}

PciDevice new_device(PciKind kind, const NodeType& type, int parent, int cpu) {
  PciDevice d;
  d.kind = kind;
  d.parent = parent;
  d.cpu = cpu;
  d.link_gbps = type.pcie_gbps;
  if (kind == PciKind::gpu) {
    d.model = type.gpu_model;
    d.sm = type.sm;
  }
  if (kind == PciKind::nic) d.nic_kind = type.nic_kind;
  return d;
}

PciDevice new_gpu(const NodeType& type, int parent, int cpu) { return new_device(PciKind::gpu, type, parent, cpu); }
PciDevice new_nic(const NodeType& type, int parent, int cpu) { return new_device(PciKind::nic, type, parent, cpu); }

// The devices of a file that share a switch (or sit directly on a CPU), in file order.
struct FileGroup {
  int cpu = 0;
  int parent = -1;  // the switch, -1 = the CPU itself
  std::vector<int> gpus, nics, unknown;
};

std::vector<FileGroup> file_groups(const Machine& m) {
  std::vector<FileGroup> groups;
  std::map<std::pair<int, int>, std::size_t> where;
  for (std::size_t i = 0; i < m.pci.size(); ++i) {
    const PciDevice& d = m.pci[i];
    if (d.kind != PciKind::gpu && d.kind != PciKind::nic && d.kind != PciKind::unknown) continue;
    const auto key = std::make_pair(d.cpu, d.parent);
    auto it = where.find(key);
    if (it == where.end()) {
      it = where.emplace(key, groups.size()).first;
      groups.push_back(FileGroup{d.cpu, d.parent, {}, {}, {}});
    }
    FileGroup& g = groups[it->second];
    (d.kind == PciKind::gpu ? g.gpus : d.kind == PciKind::nic ? g.nics : g.unknown).push_back(static_cast<int>(i));
  }
  return groups;
}

std::string shape(const std::vector<FileGroup>& groups, int cpu) {
  int n = 0;
  std::size_t leaves = 0;
  for (const auto& g : groups) {
    if (g.cpu != cpu) continue;
    ++n;
    leaves += g.gpus.size() + g.nics.size() + g.unknown.size();
  }
  return std::to_string(n) + " device group(s) with " + std::to_string(leaves) + " device(s)";
}

// A file that reports no GPUs: place the node type's GPUs into the file's PCIe groups and
// tell which unlabelled leaves are NICs and which GPUs, by the node type's layout.
void place_gpus(Machine& m, const NodeType& type) {
  const std::vector<FileGroup> groups = file_groups(m);
  const std::string where = "'" + m.name + "' does not match node type " + type.name;
  if (static_cast<int>(m.cpus.size()) != type.numa_nodes) {
    throw InputError(where + ": it has " + std::to_string(m.cpus.size()) + " NUMA node(s), " + type.name + " has " +
                     std::to_string(type.numa_nodes) + "; check --node-type");
  }
  for (int cpu = 0; cpu < static_cast<int>(m.cpus.size()); ++cpu) {
    std::vector<const FileGroup*> mine;
    std::vector<const DeviceGroup*> wanted;
    for (const auto& g : groups) {
      if (g.cpu == cpu) mine.push_back(&g);
    }
    for (const auto& g : type.groups) {
      if (g.numa == cpu) wanted.push_back(&g);
    }
    if (mine.size() != wanted.size()) {
      throw InputError(where + ": its NUMA node " + std::to_string(m.cpus[static_cast<std::size_t>(cpu)].numa) + " has " +
                       shape(groups, cpu) + ", " + type.name + " has " + std::to_string(wanted.size()) +
                       " group(s) there; check --node-type");
    }
    for (std::size_t k = 0; k < mine.size(); ++k) {
      const FileGroup& g = *mine[k];
      const DeviceGroup& want = *wanted[k];
      const int missing_nics = std::max(0, want.nics - static_cast<int>(g.nics.size()));
      const int unknown = static_cast<int>(g.unknown.size());
      int new_gpus = want.gpus, new_nics = missing_nics;
      if (unknown == missing_nics) {
        for (int i : g.unknown) {
          m.pci[static_cast<std::size_t>(i)].kind = PciKind::nic;
          m.pci[static_cast<std::size_t>(i)].nic_kind = type.nic_kind;
        }
        new_nics = 0;
      } else if (unknown == want.gpus) {
        for (int i : g.unknown) {
          PciDevice& leaf = m.pci[static_cast<std::size_t>(i)];
          PciDevice gpu = new_gpu(type, g.parent, g.cpu);
          gpu.busid = leaf.busid;
          if (leaf.link_gbps > 0) gpu.link_gbps = leaf.link_gbps;
          leaf = std::move(gpu);
        }
        new_gpus = 0;
      } else if (unknown != 0) {
        throw InputError(where + ": cannot tell which of the " + std::to_string(unknown) +
                         " unlabelled devices in one of its PCIe groups are GPUs (" + std::to_string(want.gpus) +
                         " expected) and which NICs (" + std::to_string(want.nics) + "); check --node-type");
      }
      for (int i = 0; i < new_gpus; ++i) m.pci.push_back(new_gpu(type, g.parent, g.cpu));
      for (int i = 0; i < new_nics; ++i) m.pci.push_back(new_nic(type, g.parent, g.cpu));
    }
  }
  m.notes.emplace_back("GPUs not reported by the file were placed by node type " + type.name + " (no PCI bus ids)");
}

// GPU model names differ in vendor prefixes between NVML, hwloc and PCI databases.
std::string model_key(std::string model) {
  std::transform(model.begin(), model.end(), model.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const std::string prefix : {"nvidia ", "tesla "}) {
    if (model.rfind(prefix, 0) == 0) model.erase(0, prefix.size());
  }
  return model;
}

// A file that reports GPUs (and NICs of the node type's kind) must agree with the node type
// on how many there are and which GPU it is: a p4d file is not a p4de or a p5.
void check_reported_devices(const Machine& m, const NodeType& type) {
  const std::string where = "'" + m.name + "' ";
  const int gpus = m.count(PciKind::gpu);
  if (gpus != type.gpu_count) {
    throw InputError(where + "has " + std::to_string(gpus) + " GPUs but node type " + type.name + " has " + std::to_string(type.gpu_count) +
                     "; check --node-type");
  }
  for (int i : m.indices(PciKind::gpu)) {
    const std::string& model = m.pci[static_cast<std::size_t>(i)].model;
    if (!model.empty() && model_key(model) != model_key(type.gpu_model)) {
      throw InputError(where + "has " + model + " GPUs but node type " + type.name + " has " + type.gpu_model + "; check --node-type");
    }
  }
  int nics = 0;
  for (const auto& d : m.pci) nics += d.kind == PciKind::nic && d.nic_kind == type.nic_kind ? 1 : 0;
  if (nics > 0 && nics != type.nic_count) {
    throw InputError(where + "has " + std::to_string(nics) + " " + std::string(to_string(type.nic_kind)) + " NICs but node type " +
                     type.name + " has " + std::to_string(type.nic_count) + "; check --node-type");
  }
}

}  // namespace

Machine machine_from_node_type(const NodeType& type) {
  Machine m;
  m.name = type.name;
  m.source = "catalog";
  m.node_type = type.name;
  for (int n = 0; n < type.numa_nodes; ++n) m.cpus.push_back(cpu_of_type(type, n));
  for (const DeviceGroup& g : type.groups) {
    int parent = -1;
    if (g.pci_switch) {
      PciDevice s;
      s.kind = PciKind::pci_switch;
      s.cpu = g.numa;
      s.link_gbps = type.pcie_gbps;
      parent = static_cast<int>(m.pci.size());
      m.pci.push_back(std::move(s));
    }
    for (int i = 0; i < g.gpus; ++i) m.pci.push_back(new_gpu(type, parent, g.numa));
    for (int i = 0; i < g.nics; ++i) m.pci.push_back(new_nic(type, parent, g.numa));
  }
  apply_node_type(m, type);  // NVLinks and NIC speeds, as for a file
  m.source = "catalog";
  m.notes.clear();
  m.notes.push_back("synthetic node from the catalog entry " + type.name + " (" + type.source + "); no PCI bus ids");
  return m;
}

void apply_node_type(Machine& m, const NodeType& type) {
  const int gpus = m.count(PciKind::gpu);
  if (gpus == 0) {
    place_gpus(m, type);
  } else {
    check_reported_devices(m, type);
  }
  for (CpuDomain& cpu : m.cpus) {
    if (!cpu.vendor.empty()) continue;  // the file's CPU identity wins
    const CpuDomain known = cpu_of_type(type, cpu.numa);
    cpu.arch = cpu.arch.empty() ? known.arch : cpu.arch;
    cpu.vendor = known.vendor;
    cpu.family = known.family;
    cpu.model = known.model;
    cpu.model_name = cpu.model_name.empty() ? known.model_name : cpu.model_name;
  }
  bool has_nvlink = !m.nvlinks.empty();
  int fabric_nics = 0;
  for (std::size_t i = 0; i < m.pci.size(); ++i) {
    PciDevice& d = m.pci[i];
    if (d.link_gbps <= 0 && d.kind != PciKind::unknown) d.link_gbps = type.pcie_gbps;
    if (d.kind == PciKind::gpu) {
      if (d.model.empty()) d.model = type.gpu_model;
      if (d.sm == 0) d.sm = type.sm;
      if (!has_nvlink && type.nvlinks_per_gpu > 0) m.nvlinks.push_back({static_cast<int>(i), -1, type.nvlinks_per_gpu});
    }
    if (d.kind == PciKind::nic && (d.nic_kind == type.nic_kind || d.nic_kind == NicKind::other)) {
      d.nic_kind = type.nic_kind;
      if (d.ports.empty()) d.ports.push_back(NetPort{});
      for (NetPort& port : d.ports) {
        if (port.speed_gbps <= 0) port.speed_gbps = type.nic_speed_gbps();
      }
      ++fabric_nics;
    }
  }
  if (fabric_nics != type.nic_count) {
    m.notes.push_back("node type " + type.name + " has " + std::to_string(type.nic_count) + " " + std::string(to_string(type.nic_kind)) +
                      " NICs, the source " + std::to_string(fabric_nics));
  }
  m.node_type = type.name;
  m.source += "+catalog";
}

std::vector<std::string> node_types_matching(const Machine& machine) {
  std::vector<std::string> names;
  for (const auto& type : node_types()) {
    Machine copy = machine;
    try {
      apply_node_type(copy, type);
    } catch (const InputError&) {
      continue;
    }
    names.push_back(type.name);
  }
  return names;
}

}  // namespace meshbench::topology
