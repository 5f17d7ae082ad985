#include "topology/src/hwloc_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "topology/src/nccl_rules.hpp"
#include "topology/src/pci_ids.hpp"

namespace meshbench::topology {

HwlocTopology::HwlocTopology() {
  if (hwloc_topology_init(&t_) != 0) throw std::runtime_error("hwloc_topology_init failed");
  hwloc_topology_set_io_types_filter(t_, HWLOC_TYPE_FILTER_KEEP_ALL);
  for (const char* name : kDisabledHwlocComponents) hwloc_topology_set_components(t_, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, name);
}

HwlocTopology::~HwlocTopology() { hwloc_topology_destroy(t_); }

namespace {

// hwloc keeps whatever bridge or OS device type an XML file names (bridge_type="2-1",
// osdev_type="7"); loading such a value as its enum is undefined behaviour (found by fuzzing), so
// the stored integer is compared instead.
template <class Enum>
std::underlying_type_t<Enum> stored_enum(const Enum& field) {
  std::underlying_type_t<Enum> raw{};
  std::memcpy(&raw, &field, sizeof raw);
  return raw;
}

using PciAttr = hwloc_obj_attr_u::hwloc_pcidev_attr_s;

// hwloc's nvml backend sums 20000 MB/s per NVLink 1.0 link and 25000 per link of versions
// 2 to 4 (hwloc/topology-nvml.c); dividing gives the link count NCCL works with.
constexpr double kNvlinkMbpsV2 = 25000.0, kNvlinkMbpsV1 = 20000.0;

std::string info(hwloc_obj_t obj, const char* name) {
  const char* v = obj != nullptr ? hwloc_obj_get_info_by_name(obj, name) : nullptr;
  return v != nullptr ? v : "";
}

int info_int(hwloc_obj_t obj, const char* name) {
  const std::string v = info(obj, name);
  return v.empty() ? -1 : std::atoi(v.c_str());
}

std::string busid(const PciAttr& p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", static_cast<unsigned>(p.domain), p.bus, p.dev, p.func);
  return buf;
}

std::uint32_t class24(const PciAttr& p) { return static_cast<std::uint32_t>(p.class_id) << 8; }

// The OS devices hwloc attaches under a PCI device (nvml0, cuda0, rdmap197s0, eth0, ...).
std::vector<hwloc_obj_t> os_devices(hwloc_obj_t pcidev) {
  std::vector<hwloc_obj_t> out;
  for (hwloc_obj_t c = pcidev->io_first_child; c != nullptr; c = c->next_sibling) {
    if (c->type == HWLOC_OBJ_OS_DEVICE) out.push_back(c);
  }
  return out;
}

class Reader {
 public:
  Reader(hwloc_topology_t t, const HwlocReadOptions& options, Machine& m) : t_(t), options_(options), m_(m) {}

  void read_cpus() {
    hwloc_obj_t root = hwloc_get_root_obj(t_);
    const std::string arch = info(root, "Architecture");
    const int numas = hwloc_get_nbobjs_by_type(t_, HWLOC_OBJ_NUMANODE);
    for (int i = 0; i < numas; ++i) {
      hwloc_obj_t numa = hwloc_get_obj_by_type(t_, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
      hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(t_, HWLOC_OBJ_PACKAGE, numa);
      if (package == nullptr) package = hwloc_get_next_obj_covering_cpuset_by_type(t_, numa->cpuset, HWLOC_OBJ_PACKAGE, nullptr);
      hwloc_obj_t described = package != nullptr ? package : root;
      CpuDomain cpu;
      cpu.numa = static_cast<int>(numa->os_index);
      cpu.vendor = info(described, "CPUVendor");
      cpu.family = info_int(described, "CPUFamilyNumber");
      cpu.model = info_int(described, "CPUModelNumber");
      cpu.model_name = info(described, "CPUModel");
      cpu.arch = !arch.empty() ? arch : (cpu.vendor == "GenuineIntel" || cpu.vendor == "AuthenticAMD") ? "x86_64" : "";
      m_.cpus.push_back(std::move(cpu));
    }
    if (m_.cpus.empty()) m_.cpus.push_back(CpuDomain{0, arch, "", -1, -1, ""});
  }

  void read_devices() {
    for (hwloc_obj_t obj = hwloc_get_next_pcidev(t_, nullptr); obj != nullptr; obj = hwloc_get_next_pcidev(t_, obj)) {
      const PciAttr& p = obj->attr->pcidev;
      const std::uint32_t cls = class24(p);
      const bool nvswitch = pci::is_nvswitch(p.vendor_id, cls) || info_subtype(obj) == "NVSwitch";
      if (pci::is_gpu(p.vendor_id, cls)) {
        add_endpoint(obj, PciKind::gpu);
      } else if (nvswitch) {
        // Only a target of NVLinks; kept off the PCI paths, like NCCL's NVS node.
        PciDevice d = describe(obj, PciKind::nvswitch);
        d.parent = -1;
        index_of_[obj] = static_cast<int>(m_.pci.size());
        m_.pci.push_back(std::move(d));
      } else if (pci::is_network(cls)) {
        if (options_.nics_need_os_device && os_devices(obj).empty()) {
          ++unusable_nics_;
          continue;
        }
        add_endpoint(obj, PciKind::nic);
      }
    }
    if (unusable_nics_ > 0) {
      m_.notes.push_back(std::to_string(unusable_nics_) +
                         " PCI network device(s) without a driver here or in another network namespace left out");
    }
  }

  void read_nvlinks() {
    unsigned nr = 4;
    hwloc_distances_s* dists[4] = {};
    if (hwloc_distances_get_by_name(t_, "NVLinkBandwidth", &nr, dists, 0) != 0) return;
    for (unsigned k = 0; k < nr && k < 4; ++k) {
      read_nvlink_matrix(*dists[k]);
      hwloc_distances_release(t_, dists[k]);
    }
  }

 private:
  static std::string info_subtype(hwloc_obj_t obj) { return obj->subtype != nullptr ? obj->subtype : ""; }

  int cpu_of(hwloc_obj_t obj) const {
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t_, obj);
    const int numa = anc != nullptr && anc->nodeset != nullptr ? hwloc_bitmap_first(anc->nodeset) : -1;
    const int c = m_.cpu_of_numa(numa);
    return c >= 0 ? c : 0;
  }

  PciDevice describe(hwloc_obj_t obj, PciKind kind) const {
    const PciAttr& p = obj->attr->pcidev;
    PciDevice d;
    d.kind = kind;
    d.busid = busid(p);
    d.cpu = cpu_of(obj);
    d.vendor = p.vendor_id;
    d.device = p.device_id;
    d.class_id = class24(p);
    d.link_gbps = nccl::pci_link_bw_from_hwloc(p.linkspeed);
    return d;
  }

  // NCCL walks sysfs two levels at a time (xml.cc ncclTopoGetXmlFromSys): it skips the
  // downstream port and keeps the upstream port as "the switch", and attaches a device to
  // the CPU when at most one bridge separates it from the root complex. Applied here to the
  // bridge chain hwloc gives, so both sources classify alike.
  int switch_parent(hwloc_obj_t endpoint, int cpu) {
    std::vector<hwloc_obj_t> chain;
    for (hwloc_obj_t b = endpoint->parent;
         b != nullptr && b->type == HWLOC_OBJ_BRIDGE && stored_enum(b->attr->bridge.upstream_type) == HWLOC_OBJ_BRIDGE_PCI; b = b->parent) {
      chain.push_back(b);
    }
    std::vector<hwloc_obj_t> switches;
    for (std::size_t k = 1; k < chain.size(); k += 2) switches.push_back(chain[k]);
    int parent = -1;
    for (auto it = switches.rbegin(); it != switches.rend(); ++it) {
      const auto found = index_of_.find(*it);
      if (found != index_of_.end()) {
        parent = found->second;
        continue;
      }
      PciDevice s;
      s.kind = PciKind::pci_switch;
      s.busid = busid((*it)->attr->bridge.upstream.pci);
      s.parent = parent;
      s.cpu = cpu;
      s.vendor = (*it)->attr->bridge.upstream.pci.vendor_id;
      s.device = (*it)->attr->bridge.upstream.pci.device_id;
      s.class_id = class24((*it)->attr->bridge.upstream.pci);
      s.link_gbps = nccl::pci_link_bw_from_hwloc((*it)->attr->bridge.upstream.pci.linkspeed);
      parent = static_cast<int>(m_.pci.size());
      index_of_[*it] = parent;
      m_.pci.push_back(std::move(s));
    }
    return parent;
  }

  void add_endpoint(hwloc_obj_t obj, PciKind kind) {
    PciDevice d = describe(obj, kind);
    d.parent = switch_parent(obj, d.cpu);
    if (kind == PciKind::gpu) describe_gpu(obj, d);
    if (kind == PciKind::nic) describe_nic(obj, d);
    index_of_[obj] = static_cast<int>(m_.pci.size());
    m_.pci.push_back(std::move(d));
  }

  static void describe_gpu(hwloc_obj_t obj, PciDevice& d) {
    const pci::GpuModel known = pci::gpu_model(d.device);
    d.sm = known.sm;
    for (hwloc_obj_t os : os_devices(obj)) {
      const std::string model = info(os, "GPUModel");
      if (d.model.empty() && !model.empty()) d.model = model;
      const std::string name = os->name != nullptr ? os->name : "";
      for (const char* prefix : {"nvml", "cuda"}) {
        if (name.rfind(prefix, 0) == 0 && d.gpu_index < 0) d.gpu_index = std::atoi(name.c_str() + std::string_view(prefix).size());
      }
    }
    if (d.model.empty()) d.model = known.name;
    if (d.model.empty()) d.model = info(obj, "PCIDevice");
  }

  void describe_nic(hwloc_obj_t obj, PciDevice& d) const {
    d.nic_kind = pci::nic_kind(d.vendor, d.device, d.class_id);
    NetPort port;
    for (hwloc_obj_t os : os_devices(obj)) {
      const bool rdma = stored_enum(os->attr->osdev.type) == HWLOC_OBJ_OSDEV_OPENFABRICS;
      if (rdma && d.nic_kind == NicKind::eth) d.nic_kind = NicKind::ib;  // RDMA-capable (verbs)
      // The RDMA device name is what NCCL's net plugins report; the netdev name otherwise.
      if (os->name != nullptr && (rdma || port.name.empty())) port.name = os->name;
    }
    if (options_.nic_speed_gbps && !port.name.empty()) port.speed_gbps = options_.nic_speed_gbps(port.name);
    d.ports.push_back(std::move(port));
  }

  int pci_index(hwloc_obj_t obj) const {
    if (obj != nullptr && obj->type == HWLOC_OBJ_OS_DEVICE) obj = obj->parent;
    const auto found = index_of_.find(obj);
    return found == index_of_.end() ? -1 : found->second;
  }

  void read_nvlink_matrix(const hwloc_distances_s& d) {
    for (unsigned i = 0; i < d.nbobjs; ++i) {
      const int from = pci_index(d.objs[i]);
      if (from < 0 || m_.pci[static_cast<std::size_t>(from)].kind != PciKind::gpu) continue;
      for (unsigned j = 0; j < d.nbobjs; ++j) {
        const double mbps = static_cast<double>(d.values[i * d.nbobjs + j]);
        if (i == j || mbps <= 0) continue;
        const int to = pci_index(d.objs[j]);
        if (to < 0) continue;  // a CPU (POWER9) or an object this reader does not keep
        const PciKind kind = m_.pci[static_cast<std::size_t>(to)].kind;
        if (kind != PciKind::gpu && kind != PciKind::nvswitch) continue;
        const double per_link = std::fmod(mbps, kNvlinkMbpsV2) == 0   ? kNvlinkMbpsV2
                                : std::fmod(mbps, kNvlinkMbpsV1) == 0 ? kNvlinkMbpsV1
                                                                      : kNvlinkMbpsV2;
        const int count = std::max(1, static_cast<int>(std::lround(mbps / per_link)));
        m_.nvlinks.push_back({from, kind == PciKind::gpu ? to : -1, count});
      }
    }
  }

  hwloc_topology_t t_;
  const HwlocReadOptions& options_;
  Machine& m_;
  std::map<hwloc_obj_t, int> index_of_;
  int unusable_nics_ = 0;
};

}  // namespace

Machine machine_from_hwloc(hwloc_topology_t topology, const HwlocReadOptions& options) {
  Machine m;
  hwloc_obj_t root = hwloc_get_root_obj(topology);
  m.product = info(root, "DMIProductName");
  Reader reader(topology, options, m);
  reader.read_cpus();
  reader.read_devices();
  reader.read_nvlinks();
  return m;
}

}  // namespace meshbench::topology
