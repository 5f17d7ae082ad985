#pragma once
// PCI identities meshbench recognises: GPUs by NVIDIA's vendor id and display class, EFA by
// Amazon's vendor id and device id, and the few GPU models the bundled files name only by id.
#include <cstdint>
#include <string>

#include "topology/node.hpp"

namespace meshbench::topology::pci {

inline constexpr std::uint16_t kVendorNvidia = 0x10de;
inline constexpr std::uint16_t kVendorAmazon = 0x1d0f;
inline constexpr std::uint16_t kVendorMellanox = 0x15b3;

// class_id is the 24-bit class code (base, sub, prog-if), e.g. 0x030200.
bool is_gpu(std::uint16_t vendor, std::uint32_t class_id);
bool is_nvswitch(std::uint16_t vendor, std::uint32_t class_id);
bool is_network(std::uint32_t class_id);
bool is_bridge(std::uint32_t class_id);
NicKind nic_kind(std::uint16_t vendor, std::uint16_t device, std::uint32_t class_id);

struct GpuModel {
  std::string name;  // empty when the device id is not in the table
  int sm = 0;
};
GpuModel gpu_model(std::uint16_t device);

}  // namespace meshbench::topology::pci
