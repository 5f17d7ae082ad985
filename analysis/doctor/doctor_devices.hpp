#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::analysis {

// Devices counted from sysfs PCI (no hwloc or driver needed): GPUs are vendor 0x10de with class
// 0x03xxxx (display/3D; NVSwitches are class 0x0680 and are not counted); EFA devices are Amazon's
// vendor 0x1d0f with a device id 0xefaN (the same vendor also makes ENA NICs and NVMe).
struct PciCounts {
  int gpus = 0;
  int efa = 0;
};
PciCounts count_pci_devices(const std::filesystem::path& sysfs_root = "/sys");

struct NetInterface {
  std::string name;
  int mtu = 0;
  std::string driver;  // "ena", "virtio_net", "" for virtual interfaces
};
std::vector<NetInterface> read_net_interfaces(const std::filesystem::path& sysfs_root = "/sys");

// What an EFA node type of topology's catalog has; --node-type takes the short or the full name.
struct NodeTypeSpec {
  std::string_view name;           // "p5"
  std::string_view instance_type;  // "p5.48xlarge"
  int gpus = 0;
  int efa = 0;
};
std::optional<NodeTypeSpec> find_node_type(std::string_view name);
std::string node_type_names();  // "p4d, p4de, p5, ..." for messages

// The EC2 instance type from DMI (product_name is e.g. "p5.48xlarge" on Nitro), "" elsewhere.
std::string detect_instance_type(const std::filesystem::path& sysfs_root = "/sys");

}  // namespace meshbench::analysis
