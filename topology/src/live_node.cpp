// This node, discovered live: hwloc (the same reader as hwloc XML), NIC line rates from
// sysfs, and GPU facts and NVLinks from NVML where the NVIDIA driver is installed.
#include <unistd.h>

#include <limits.h>
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/mpi/host_comm.hpp"
#include "common/strings.hpp"
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

// "1 Gb/s (0.125 GB/s)" for a rate in bits per second.
std::string describe_rate(std::uint64_t bps) {
  char text[64];
  std::snprintf(text, sizeof text, "%g Gb/s (%g GB/s)", static_cast<double>(bps) / 1e9, static_cast<double>(bps) / 8e9);
  return text;
}

struct LinkRate {
  std::string host, interface;
  std::uint64_t bps = 0;
};

// The file's lines, or why it cannot be used (then `why` is set and the lines are none).
std::vector<LinkRate> read_link_rates(const std::string& path, std::string& why) {
  std::ifstream in(path);
  if (!in) {
    why = "cannot be read";
    return {};
  }
  std::vector<LinkRate> rates;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string_view text = trim(std::string_view(line).substr(0, line.find('#')));
    if (text.empty()) continue;
    std::istringstream fields{std::string(text)};
    LinkRate rate;
    std::string bps, extra;
    fields >> rate.host >> rate.interface >> bps >> extra;
    const auto [end, ec] = std::from_chars(bps.data(), bps.data() + bps.size(), rate.bps);
    if (bps.empty() || !extra.empty() || ec != std::errc() || end != bps.data() + bps.size()) {
      why = "line " + std::to_string(number) + " is '" + std::string(text.substr(0, 80)) + "', not 'HOST INTERFACE BITS_PER_SECOND'";
      return {};
    }
    rates.push_back(std::move(rate));
  }
  return rates;
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

void apply_link_rates(Machine& m, const std::string& path, const std::string& host) {
  const std::string file = "link rate file " + path + " (" + kLinkRatesVariable + ")";
  std::string why;
  const std::vector<LinkRate> rates = read_link_rates(path, why);
  if (!why.empty()) {
    m.notes.push_back(one_line(file + " ignored: " + why + "; NIC line rates are as discovered"));
    return;
  }
  bool named = false;
  for (const LinkRate& rate : rates) {
    if (rate.host != host) continue;
    named = true;
    if (rate.interface == kInNodeLink) {
      if (rate.bps == 0) {
        m.in_node_gbps.reset();
        m.notes.push_back(one_line("the in-node path is not shaped (" + file + "); CPU slots reach each other at their default rate"));
      } else {
        m.in_node_gbps = static_cast<double>(rate.bps) / 8e9;
        m.notes.push_back(
            one_line("in-node path rate " + describe_rate(rate.bps) + " between CPU slots: the rate it is shaped to, from " + file));
      }
      continue;
    }
    std::vector<NetPort*> ports;
    for (PciDevice& d : m.pci) {
      for (NetPort& port : d.ports) {
        if (port.name == rate.interface) ports.push_back(&port);
      }
    }
    if (ports.empty()) {
      m.notes.push_back(one_line(file + " names NIC " + rate.interface + ", which this node does not have"));
    } else if (rate.bps == 0) {
      m.notes.push_back(one_line("NIC " + rate.interface + " is not shaped (" + file + "); its line rate is as discovered"));
    } else {
      for (NetPort* port : ports) port->speed_gbps = static_cast<double>(rate.bps) / 8e9;
      m.notes.push_back(
          one_line("NIC " + rate.interface + " line rate " + describe_rate(rate.bps) + ": the rate its link is shaped to, from " + file));
    }
  }
  // Notes name no host: the nodes of a cluster that differ in nothing else stay one layout.
  if (!named) m.notes.push_back(one_line(file + " names no link of this node; NIC line rates are as discovered"));
}

Machine discover_local_machine() {
  HwlocTopology topology;
  if (hwloc_topology_load(topology.get()) != 0) throw std::runtime_error("hwloc could not discover this node's topology");
  HwlocReadOptions options;
  options.nic_speed_gbps = sysfs_speed_gbps;
  options.nics_need_os_device = true;
  Machine m = machine_from_hwloc(topology.get(), options);
  m.name = mpi::this_host_name();
  m.source = "hwloc";
  m.raw_xml = export_xml(topology.get());
  add_virtual_nics(m);
  if (const char* rates = std::getenv(kLinkRatesVariable); rates != nullptr && *rates != '\0') apply_link_rates(m, rates, m.name);
  if (m.count(PciKind::gpu) > 0 && add_nvml_facts(m)) m.source += "+nvml";
  return m;
}

}  // namespace meshbench::topology
