// This node, discovered live: hwloc (the same reader as hwloc XML), NIC line rates from
// sysfs, and GPU facts and NVLinks from NVML where the NVIDIA driver is installed.
#include <unistd.h>

#include <limits.h>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "topology/loaders.hpp"
#include "topology/src/hwloc_reader.hpp"
#include "topology/src/nccl_rules.hpp"
#include "topology/src/nvml_links.hpp"

namespace meshbench::topology {

namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// RDMA devices report "100 Gb/sec (4X EDR)" in ports/1/rate; netdevs their Mb/s in speed
// (-1 when the driver does not know, as virtio and veth do).
double sysfs_speed_gbps(const std::string& name) {
  const std::string rate = first_line("/sys/class/infiniband/" + name + "/ports/1/rate");
  if (!rate.empty()) {
    const double gbit = std::atof(rate.c_str());
    if (gbit > 0) return gbit / 8.0;
  }
  const std::string speed = first_line("/sys/class/net/" + name + "/speed");
  const double mbps = speed.empty() ? 0 : std::atof(speed.c_str());
  return mbps > 0 ? nccl::net_bw_from_mbps(mbps) : 0;
}

// Interfaces hwloc cannot see because they are not PCI devices: the veth of a network
// namespace (the local test cluster), a cloud's virtual NIC. Ethernet-type, up, not a
// bridge, not loopback; NCCL would place such a NIC directly in a CPU.
void add_virtual_nics(Machine& m) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> known;
  for (const auto& d : m.pci) {
    for (const auto& port : d.ports) known.push_back(port.name);
  }
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator("/sys/class/net", ec)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    const std::string dir = "/sys/class/net/" + name;
    if (std::find(known.begin(), known.end(), name) != known.end() || fs::exists(dir + "/device", ec) || fs::exists(dir + "/bridge", ec))
      continue;
    if (first_line(dir + "/type") != "1" || first_line(dir + "/operstate") != "up") continue;
    PciDevice nic;
    nic.kind = PciKind::nic;
    nic.cpu = -1;
    nic.link_gbps = nccl::kLocBw;
    nic.nic_kind = NicKind::eth;
    nic.ports.push_back(NetPort{name, -1, sysfs_speed_gbps(name)});
    m.pci.push_back(std::move(nic));
  }
}

std::string hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

std::string export_xml(hwloc_topology_t t) {
  char* buf = nullptr;
  int len = 0;
  if (hwloc_topology_export_xmlbuffer(t, &buf, &len, 0) != 0 || buf == nullptr) return {};
  std::string xml(buf, static_cast<std::size_t>(len > 0 ? len - 1 : 0));  // len counts the final NUL
  hwloc_free_xmlbuffer(t, buf);
  return xml;
}

}  // namespace

Machine discover_local_machine() {
  HwlocTopology topology;
  if (hwloc_topology_load(topology.get()) != 0) throw std::runtime_error("hwloc could not discover this node's topology");
  HwlocReadOptions options;
  options.nic_speed_gbps = sysfs_speed_gbps;
  options.nics_need_os_device = true;
  Machine m = machine_from_hwloc(topology.get(), options);
  m.name = hostname();
  m.source = "hwloc";
  m.raw_xml = export_xml(topology.get());
  add_virtual_nics(m);
  if (m.count(PciKind::gpu) > 0 && add_nvml_facts(m)) m.source += "+nvml";
  return m;
}

}  // namespace meshbench::topology
