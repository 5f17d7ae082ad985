#pragma once
// One reader for every hwloc topology, loaded from XML or discovered live: GPUs by NVIDIA's
// vendor id and display class, NICs by network class (EFA by Amazon's ids), the PCIe
// switches NCCL would see above them, and NVLinks from hwloc's NVLinkBandwidth matrix.
#include <hwloc.h>

#include <functional>
#include <string>

#include "topology/machine.hpp"

namespace meshbench::topology {

// Owns an hwloc topology with every I/O object kept (hwloc drops them by default, also
// when importing XML). Discovery never runs hwloc's OpenCL component (kDisabledHwlocComponents).
class HwlocTopology {
 public:
  HwlocTopology();
  ~HwlocTopology();
  HwlocTopology(const HwlocTopology&) = delete;
  HwlocTopology& operator=(const HwlocTopology&) = delete;
  hwloc_topology_t get() const { return t_; }

 private:
  hwloc_topology_t t_ = nullptr;
};

// hwloc's OpenCL discovery queries the OpenCL platforms, which on NVIDIA's ICD initialises CUDA:
// on a node's first rank it can run before the NCCL backend's cudaSetDevice and has crashed
// there with CUDA 12. Live discovery learns nothing from it that the PCI and NVML components do
// not give, so every topology here is made without it.
inline constexpr const char* kDisabledHwlocComponents[] = {"opencl"};

struct HwlocReadOptions {
  // Line rate of a NIC in GB/s by its OS device name; hwloc does not know it. 0 = unknown.
  std::function<double(const std::string& name)> nic_speed_gbps;
  // Live: a network PCI device without an OS device has no driver bound here or belongs to
  // another network namespace; it cannot carry this node's traffic, so it is left out.
  bool nics_need_os_device = false;
};

Machine machine_from_hwloc(hwloc_topology_t topology, const HwlocReadOptions& options = {});

}  // namespace meshbench::topology
