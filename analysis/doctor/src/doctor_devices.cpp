#include "analysis/doctor/doctor_devices.hpp"

#include <algorithm>
#include <array>
#include <fstream>

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

// Catalog from AWS's instance profiles (GPUs | EFA devices): p4d 8|4, p5 8|32, p5en 8|16,
// p6-b200 8|8; g5.48xlarge has 8 GPUs and one EFA.
constexpr std::array<NodeTypeSpec, 7> kCatalog = {{
    {"p4d", "p4d.24xlarge", 8, 4},
    {"p4de", "p4de.24xlarge", 8, 4},
    {"p5", "p5.48xlarge", 8, 32},
    {"p5e", "p5e.48xlarge", 8, 32},
    {"p5en", "p5en.48xlarge", 8, 16},
    {"p6-b200", "p6-b200.48xlarge", 8, 8},
    {"g5", "g5.48xlarge", 8, 1},
}};

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
  for (const auto& spec : kCatalog) {
    if (spec.name == name || spec.instance_type == name) return spec;
  }
  return std::nullopt;
}

std::string node_type_names() {
  std::string out;
  for (const auto& spec : kCatalog) out += (out.empty() ? "" : ", ") + std::string(spec.name);
  return out;
}

std::string detect_instance_type(const std::filesystem::path& sysfs_root) {
  return read_line(sysfs_root / "devices/virtual/dmi/id/product_name");
}

}  // namespace meshbench::analysis
