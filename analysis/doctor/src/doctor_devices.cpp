#include "analysis/doctor/doctor_devices.hpp"

#include <algorithm>
#include <fstream>

#include "common/strings.hpp"
#include "topology/catalog.hpp"

namespace meshbench::analysis {

namespace {

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

unsigned long read_hex(const std::filesystem::path& path) {
  try {
    return std::stoul(read_line(path), nullptr, 16);
  } catch (const std::exception&) {
    return 0;
  }
}

// The doctor's view of topology's catalog (topology/catalog.hpp, where the facts and their
// sources live): the node types with EFA, since the device checks count EFA devices. The
// views point into the catalog, which lives as long as the program.
const std::vector<NodeTypeSpec>& efa_node_types() {
  static const std::vector<NodeTypeSpec> specs = [] {
    std::vector<NodeTypeSpec> out;
    for (const auto& type : topology::node_types()) {
      if (type.nic_kind != topology::NicKind::efa) continue;
      const std::string_view instance_type = type.name;
      out.push_back({instance_type.substr(0, instance_type.find('.')), instance_type, type.gpu_count, type.nic_count});
    }
    return out;
  }();
  return specs;
}

}  // namespace

PciCounts count_pci_devices(const std::filesystem::path& sysfs_root) {
  PciCounts counts;
  std::error_code ec;
  for (const auto& dev : std::filesystem::directory_iterator(sysfs_root / "bus/pci/devices", ec)) {
    const unsigned long vendor = read_hex(dev.path() / "vendor");
    if (vendor == 0x10de && (read_hex(dev.path() / "class") >> 16U) == 0x03) ++counts.gpus;
    if (vendor == 0x1d0f && (read_hex(dev.path() / "device") & 0xfff0U) == 0xefa0) ++counts.efa;
  }
  return counts;
}

std::vector<NetInterface> read_net_interfaces(const std::filesystem::path& sysfs_root) {
  std::vector<NetInterface> out;
  std::error_code ec;
  for (const auto& dev : std::filesystem::directory_iterator(sysfs_root / "class/net", ec)) {
    NetInterface nic;
    nic.name = dev.path().filename().string();
    if (nic.name == "lo") continue;
    try {
      nic.mtu = std::stoi(read_line(dev.path() / "mtu"));
    } catch (const std::exception&) {
      continue;
    }
    std::error_code link_ec;
    const auto driver = std::filesystem::read_symlink(dev.path() / "device/driver", link_ec);
    if (!link_ec) nic.driver = driver.filename().string();
    out.push_back(std::move(nic));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

std::optional<NodeTypeSpec> find_node_type(std::string_view name) {
  for (const auto& spec : efa_node_types()) {
    if (spec.name == name || spec.instance_type == name) return spec;
  }
  return std::nullopt;
}

std::string node_type_names() {
  return join(efa_node_types(), ", ", [](const NodeTypeSpec& spec) { return spec.name; });
}

std::string detect_instance_type(const std::filesystem::path& sysfs_root) {
  return read_line(sysfs_root / "devices/virtual/dmi/id/product_name");
}

}  // namespace meshbench::analysis
