// From a Machine to a NodeTopology: NCCL's graph (CPU, PCI, GPU, NIC, NVS nodes), its
// breadth-first path search (paths.cc ncclTopoSetPaths) from every GPU, and the rails.
#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <string>

#include "topology/machine.hpp"
#include "topology/src/nccl_rules.hpp"

namespace meshbench::topology {

namespace {

enum class NodeKind { cpu, pci, gpu, nic, nvs, none };
enum class ArcType { loc, nvl, pci, sys };

struct Arc {
  int to;
  ArcType type;
  double bw;
};

struct Path {
  LinkClass type = LinkClass::LOC;
  double bw = 0;  // 0 = not reached
  int count = 0;
};

// The graph NCCL would build: CPUs first, then one node per PCI device, then the NVS node.
class Graph {
 public:
  explicit Graph(const Machine& m) : m_(m), cpus_(static_cast<int>(m.cpus.size())) {
    const int n = cpus_ + static_cast<int>(m.pci.size()) + 1;
    kind_.assign(static_cast<std::size_t>(n), NodeKind::none);
    arcs_.resize(static_cast<std::size_t>(n));
    for (int c = 0; c < cpus_; ++c) kind_[static_cast<std::size_t>(c)] = NodeKind::cpu;
    kind_.back() = NodeKind::nvs;
    for (std::size_t i = 0; i < m.pci.size(); ++i) add_pci(static_cast<int>(i));
    for (int a = 0; a < cpus_; ++a) {
      for (int b = 0; b < cpus_; ++b) {
        if (a != b) connect(a, b, ArcType::sys, nccl::inter_cpu_bw(m.cpus[static_cast<std::size_t>(a)]));
      }
    }
    for (const auto& link : m.nvlinks) add_nvlink(link);
    // NCCL keeps every node's links sorted by bandwidth, which decides ties in the search.
    for (auto& list : arcs_) std::stable_sort(list.begin(), list.end(), [](const Arc& x, const Arc& y) { return x.bw > y.bw; });
  }

  int node_of_pci(int i) const { return cpus_ + i; }

  // ncclTopoSetPaths for one base node: fewest hops first, then the highest bandwidth; the
  // path type is the worst hop type along it.
  std::vector<Path> paths_from(int base) const {
    std::vector<Path> path(arcs_.size());
    path[static_cast<std::size_t>(base)] = {LinkClass::LOC, nccl::kLocBw, 0};
    std::vector<int> frontier{base};
    while (!frontier.empty()) {
      std::vector<int> next;
      for (int node : frontier) {
        const Path here = path[static_cast<std::size_t>(node)];
        for (const Arc& arc : arcs_[static_cast<std::size_t>(node)]) {
          const NodeKind from_kind = kind_[static_cast<std::size_t>(node)];
          const NodeKind to_kind = kind_[static_cast<std::size_t>(arc.to)];
          // A path may pass through a GPU only as one NVLink hop to another GPU.
          if (node != base && from_kind == NodeKind::gpu && (arc.type != ArcType::nvl || to_kind != NodeKind::gpu || here.count > 1))
            continue;
          Path& there = path[static_cast<std::size_t>(arc.to)];
          const double bw = std::min(here.bw, arc.bw);
          if (!((there.bw == 0 || there.count > here.count) && there.bw < bw)) continue;
          there.count = here.count + 1;
          there.bw = bw;
          LinkClass type = arc.type == ArcType::loc   ? LinkClass::LOC
                           : arc.type == ArcType::nvl ? LinkClass::NVL
                           : arc.type == ArcType::sys ? LinkClass::SYS
                                                      : LinkClass::PIX;
          if (from_kind == NodeKind::pci && to_kind == NodeKind::pci) type = LinkClass::PXB;
          if (arc.type == ArcType::pci && (from_kind == NodeKind::cpu || to_kind == NodeKind::cpu)) type = LinkClass::PHB;
          if (from_kind == NodeKind::gpu && here.type == LinkClass::NVL && type == LinkClass::NVL && there.count > 1) type = LinkClass::NVB;
          there.type = std::max(here.type, type);
          if (std::find(next.begin(), next.end(), arc.to) == next.end()) next.push_back(arc.to);
        }
      }
      frontier = std::move(next);
    }
    return path;
  }

 private:
  void connect(int a, int b, ArcType type, double bw) {
    auto& list = arcs_[static_cast<std::size_t>(a)];
    for (auto& arc : list) {
      if (arc.to == b && arc.type == type) {  // NCCL adds bandwidth to an existing link
        arc.bw += bw;
        return;
      }
    }
    list.push_back({b, type, bw});
  }

  void add_pci(int i) {
    const PciDevice& d = m_.pci[static_cast<std::size_t>(i)];
    const int node = node_of_pci(i);
    NodeKind kind = NodeKind::none;
    if (d.kind == PciKind::pci_switch) kind = NodeKind::pci;
    if (d.kind == PciKind::gpu) kind = NodeKind::gpu;
    if (d.kind == PciKind::nic) kind = NodeKind::nic;
    kind_[static_cast<std::size_t>(node)] = kind;
    if (kind == NodeKind::none) return;  // NVSwitch PCI functions, storage, unclassified leaves: never on a path
    const int up = d.parent >= 0 ? node_of_pci(d.parent) : std::max(d.cpu, 0);  // a virtual NIC hangs off the first CPU
    const double bw = d.link_gbps > 0 ? d.link_gbps : nccl::kPciBwDefault;
    connect(node, up, ArcType::pci, bw);
    connect(up, node, ArcType::pci, bw);
  }

  void add_nvlink(const NvLink& link) {
    const PciDevice& gpu = m_.pci[static_cast<std::size_t>(link.gpu)];
    const double bw = link.count * nccl::nvlink_bw_per_link(gpu.sm);
    const int from = node_of_pci(link.gpu);
    if (link.peer < 0) {
      const int nvs = static_cast<int>(arcs_.size()) - 1;
      connect(from, nvs, ArcType::nvl, bw);
      connect(nvs, from, ArcType::nvl, bw);
    } else {
      connect(from, node_of_pci(link.peer), ArcType::nvl, bw);
    }
  }

  const Machine& m_;
  int cpus_;
  std::vector<NodeKind> kind_;
  std::vector<std::vector<Arc>> arcs_;
};

// NVML numbers GPUs by PCI bus id, NCCL its NICs by net device; a file may give those
// indices, only bus ids, or neither (then the order of the file stands).
template <typename Index>
std::vector<int> ordered(const Machine& m, PciKind kind, Index index) {
  std::vector<int> idx = m.indices(kind);
  const auto bus = [&](int i) { return m.pci[static_cast<std::size_t>(i)].busid; };
  if (std::all_of(idx.begin(), idx.end(), [&](int i) { return index(i) >= 0; })) {
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return index(a) < index(b); });
  } else if (std::all_of(idx.begin(), idx.end(), [&](int i) { return !bus(i).empty(); })) {
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return bus(a) < bus(b); });
  }
  return idx;
}

std::vector<int> ordered_gpus(const Machine& m) {
  return ordered(m, PciKind::gpu, [&](int i) { return m.pci[static_cast<std::size_t>(i)].gpu_index; });
}

// rdma-core names a PCI RDMA device "rdmap<bus>s<slot>[f<function>]" (decimal), the names
// EFA devices carry on EC2; used only when the source gives no name.
std::string rdma_name_from_busid(const std::string& busid) {
  unsigned domain = 0, bus = 0, slot = 0, function = 0;
  if (std::sscanf(busid.c_str(), "%x:%x:%x.%x", &domain, &bus, &slot, &function) != 4 || domain != 0) return {};
  std::string name = "rdmap" + std::to_string(bus) + "s" + std::to_string(slot);
  if (function != 0) name += "f" + std::to_string(function);
  return name;
}

struct NicList {
  std::vector<Nic> nics;
  std::vector<int> device_of;  // per NIC: index into Machine::pci
};

NicList list_nics(const Machine& m, const std::map<int, int>& switch_ordinal, std::vector<std::string>& notes) {
  const std::vector<int> devices = ordered(m, PciKind::nic, [&](int i) {
    const auto& ports = m.pci[static_cast<std::size_t>(i)].ports;
    return ports.empty() ? -1 : ports.front().dev;
  });
  NicList out;
  bool defaulted_speed = false, derived_name = false;
  for (int i : devices) {
    const PciDevice& d = m.pci[static_cast<std::size_t>(i)];
    std::vector<NetPort> ports = d.ports.empty() ? std::vector<NetPort>{NetPort{}} : d.ports;
    for (const NetPort& port : ports) {
      Nic nic;
      nic.kind = d.nic_kind;
      nic.pci = d.busid;
      nic.numa = d.cpu >= 0 ? m.cpus[static_cast<std::size_t>(d.cpu)].numa : -1;
      nic.pci_switch = d.parent >= 0 ? switch_ordinal.at(d.parent) : -1;
      nic.name = port.name;
      if (nic.name.empty() && d.nic_kind == NicKind::efa) {
        nic.name = rdma_name_from_busid(d.busid);
        derived_name = derived_name || !nic.name.empty();
      }
      if (nic.name.empty()) nic.name = "nic" + std::to_string(out.nics.size());
      nic.speed_gbps = port.speed_gbps;
      if (nic.speed_gbps <= 0) {
        nic.speed_gbps = nccl::net_bw_from_mbps(0);
        defaulted_speed = true;
      }
      out.nics.push_back(std::move(nic));
      out.device_of.push_back(i);
    }
  }
  if (defaulted_speed) {
    notes.emplace_back(
        "NIC line rate not known: NCCL's default of 10 Gb/s (1.25 GB/s) is assumed (for a file, --node-type gives the real one)");
  }
  if (derived_name) notes.emplace_back("EFA device names derived from bus ids by rdma-core's rule (rdmap<bus>s<slot>)");
  return out;
}

// Rails use the fabric NICs: RDMA NICs (EFA, InfiniBand) where the node has any, as NCCL's
// net plugin would; otherwise every NIC (sockets over Ethernet).
std::vector<int> fabric_nics(const std::vector<Nic>& nics) {
  std::vector<int> rdma, all(nics.size());
  std::iota(all.begin(), all.end(), 0);
  for (std::size_t i = 0; i < nics.size(); ++i) {
    if (nics[i].kind == NicKind::efa || nics[i].kind == NicKind::ib) rdma.push_back(static_cast<int>(i));
  }
  return rdma.empty() ? all : rdma;
}

std::string describe_cpu(const Machine& m) {
  if (m.cpus.empty()) return {};
  const CpuDomain& c = m.cpus.front();
  std::string text = c.model_name.empty() ? (c.vendor.empty() ? std::string("CPU") : c.vendor) : c.model_name;
  char bw[32];
  std::snprintf(bw, sizeof bw, "%g", nccl::inter_cpu_bw(c));
  text += " (" + nccl::cpu_generation(c);
  if (m.cpus.size() > 1) text += ", " + std::string(bw) + " GB/s between sockets";
  return text + ")";
}

void fill_common(const Machine& m, NodeTopology& node) {
  node.hostname = m.name;
  node.node_type = m.node_type;
  node.source = m.source;
  node.raw_xml = m.raw_xml;
  node.numa_nodes = std::max(1, static_cast<int>(m.cpus.size()));
  node.cpu = describe_cpu(m);
  node.notes = m.notes;
}

}  // namespace

int Machine::count(PciKind kind) const {
  return static_cast<int>(std::count_if(pci.begin(), pci.end(), [&](const PciDevice& d) { return d.kind == kind; }));
}

std::vector<int> Machine::indices(PciKind kind) const {
  std::vector<int> out;
  for (std::size_t i = 0; i < pci.size(); ++i) {
    if (pci[i].kind == kind) out.push_back(static_cast<int>(i));
  }
  return out;
}

int Machine::cpu_of_numa(int numa_id) const {
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    if (cpus[i].numa == numa_id) return static_cast<int>(i);
  }
  return -1;
}

NodeTopology build_gpu_node(const Machine& m) {
  NodeTopology node;
  fill_common(m, node);
  std::map<int, int> switch_ordinal;
  for (int s : m.indices(PciKind::pci_switch)) switch_ordinal.emplace(s, static_cast<int>(switch_ordinal.size()));

  const std::vector<int> gpus = ordered_gpus(m);
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const PciDevice& d = m.pci[static_cast<std::size_t>(gpus[i])];
    Slot slot;
    slot.index = static_cast<int>(i);
    slot.kind = SlotKind::gpu;
    slot.pci = d.busid;
    slot.numa = m.cpus[static_cast<std::size_t>(d.cpu)].numa;
    slot.model = d.model.empty() ? "NVIDIA GPU" : d.model;
    slot.pci_switch = d.parent >= 0 ? switch_ordinal.at(d.parent) : -1;
    node.slots.push_back(std::move(slot));
  }
  NicList nics = list_nics(m, switch_ordinal, node.notes);
  node.nics = std::move(nics.nics);
  const std::vector<int> fabric = fabric_nics(node.nics);

  const Graph graph(m);
  const std::size_t n = gpus.size();
  node.links.assign(n * n, LinkClass::LOC);
  node.bandwidth_gbps.assign(n * n, nccl::kLocBw);
  node.rails.resize(n);
  for (std::size_t a = 0; a < n; ++a) {
    const std::vector<Path> paths = graph.paths_from(graph.node_of_pci(gpus[a]));
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      const Path& p = paths[static_cast<std::size_t>(graph.node_of_pci(gpus[b]))];
      node.links[a * n + b] = p.type;
      node.bandwidth_gbps[a * n + b] = p.bw;
    }
    LinkClass nearest = LinkClass::NET;
    for (int nic : fabric) {
      const Path& p = paths[static_cast<std::size_t>(graph.node_of_pci(nics.device_of[static_cast<std::size_t>(nic)]))];
      if (p.bw == 0) continue;
      if (p.type < nearest) {
        nearest = p.type;
        node.rails[a].clear();
      }
      if (p.type == nearest) node.rails[a].push_back(nic);
    }
  }
  return node;
}

NodeTopology build_cpu_node(const Machine& m, const std::vector<int>& slot_numa) {
  NodeTopology node;
  fill_common(m, node);
  std::map<int, int> switch_ordinal;
  for (int s : m.indices(PciKind::pci_switch)) switch_ordinal.emplace(s, static_cast<int>(switch_ordinal.size()));
  const auto cpu_for = [&](int numa_id) -> const CpuDomain* {
    const int c = m.cpu_of_numa(numa_id);
    if (c >= 0) return &m.cpus[static_cast<std::size_t>(c)];
    return m.cpus.empty() ? nullptr : &m.cpus.front();
  };
  for (std::size_t i = 0; i < slot_numa.size(); ++i) {
    Slot slot;
    slot.index = static_cast<int>(i);
    slot.kind = SlotKind::cpu;
    slot.numa = slot_numa[i];
    const CpuDomain* cpu = cpu_for(slot.numa);
    slot.model = cpu != nullptr && !cpu->model_name.empty() ? cpu->model_name : "CPU";
    node.slots.push_back(std::move(slot));
  }
  NicList nics = list_nics(m, switch_ordinal, node.notes);
  node.nics = std::move(nics.nics);
  const std::vector<int> fabric = fabric_nics(node.nics);

  // Ranks on one NUMA node share its memory (PHB in NCCL's terms); across NUMA nodes traffic
  // crosses the inter-socket link (SYS); an unknown binding is treated as the worse of the two.
  // A path shaped to a rate (Machine::in_node_gbps) has that rate, whatever the class.
  const std::size_t n = slot_numa.size();
  node.links.assign(n * n, LinkClass::LOC);
  node.bandwidth_gbps.assign(n * n, nccl::kLocBw);
  node.rails.resize(n);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      const bool same = slot_numa[a] >= 0 && slot_numa[a] == slot_numa[b];
      node.links[a * n + b] = same ? LinkClass::PHB : LinkClass::SYS;
      const CpuDomain* cpu = cpu_for(slot_numa[a]);
      const double by_class = same || cpu == nullptr ? nccl::kLocBw : nccl::inter_cpu_bw(*cpu);
      node.bandwidth_gbps[a * n + b] = m.in_node_gbps.value_or(by_class);
    }
    LinkClass nearest = LinkClass::NET;
    for (int nic : fabric) {
      const int nic_numa = node.nics[static_cast<std::size_t>(nic)].numa;
      const bool local = nic_numa < 0 || slot_numa[a] < 0 || nic_numa == slot_numa[a];
      const LinkClass type = local ? LinkClass::PHB : LinkClass::SYS;
      if (type < nearest) {
        nearest = type;
        node.rails[a].clear();
      }
      if (type == nearest) node.rails[a].push_back(nic);
    }
  }
  return node;
}

}  // namespace meshbench::topology
