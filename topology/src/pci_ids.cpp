#include "topology/src/pci_ids.hpp"

#include <array>

namespace meshbench::topology::pci {

namespace {

struct KnownGpu {
  std::uint16_t device;
  const char* name;
  int sm;
};
// Only ids that the bundled topology files carry, with the names those files (or their
// hwloc GPUModel/PCIDevice infos) give; compute capabilities from NVIDIA's CUDA GPU list.
constexpr std::array<KnownGpu, 4> kKnownGpus = {{
    {0x20b0, "NVIDIA A100-SXM4-40GB", 80},  // p4d-24xl-topo.xml ("A100-40GB", aws-ofi-nccl)
    {0x20b2, "NVIDIA A100-SXM4-80GB", 80},  // p4de-24xl-topo.xml ("A100-80GB")
    {0x1db8, "Tesla V100-SXM3-32GB", 70},   // nvidiaDGX2.xml GPUModel "Tesla V100-SXM3-32GB-H"
    {0x1eb8, "Tesla T4", 75},               // g4dnmetal.xml "TU104GL [Tesla T4]"
}};

// EFA device ids are 0xefa0 upwards (efa0, efa1, efa2, efa3 so far).
constexpr std::uint16_t kEfaDeviceMask = 0xfff0, kEfaDeviceBase = 0xefa0;

}  // namespace

bool is_gpu(std::uint16_t vendor, std::uint32_t class_id) { return vendor == kVendorNvidia && (class_id >> 16) == 0x03; }

bool is_nvswitch(std::uint16_t vendor, std::uint32_t class_id) { return vendor == kVendorNvidia && (class_id >> 8) == 0x0680; }

bool is_network(std::uint32_t class_id) { return (class_id >> 16) == 0x02; }

bool is_bridge(std::uint32_t class_id) { return (class_id >> 8) == 0x0604; }

NicKind nic_kind(std::uint16_t vendor, std::uint16_t device, std::uint32_t class_id) {
  if (vendor == kVendorAmazon && (device & kEfaDeviceMask) == kEfaDeviceBase) return NicKind::efa;
  if (vendor == kVendorMellanox || (class_id >> 8) == 0x0207) return NicKind::ib;
  if (is_network(class_id)) return NicKind::eth;
  return NicKind::other;
}

GpuModel gpu_model(std::uint16_t device) {
  for (const auto& g : kKnownGpus) {
    if (g.device == device) return {g.name, g.sm};
  }
  return {};
}

}  // namespace meshbench::topology::pci
