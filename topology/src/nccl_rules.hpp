#pragma once
// NCCL's topology constants and formulas, kept as data so a new NCCL release is a table
// edit (topology-formats.md §3.2 and §4; NCCL src/graph/topo.h, topo.cc, xml.cc).
#include <string>
#include <string_view>

#include "topology/machine.hpp"

namespace meshbench::topology::nccl {

inline constexpr double kLocBw = 5000.0;                 // LOC_BW: a device to itself, NIC placed directly in a CPU
inline constexpr double kPciBwDefault = 12.0;            // an unknown link: width 16 at NCCL's default speed (60)
inline constexpr double kNetSpeedDefaultMbps = 10000.0;  // <net speed> <= 0 or missing

// PCI link bandwidth, GB/s: link_width * speed / 80, speed from NCCL's table (prefix match).
double pci_link_bw(std::string_view link_speed, int link_width);
// The same from hwloc's pci_link_speed (GB/s of raw data rate, width already folded in).
double pci_link_bw_from_hwloc(double hwloc_gbps);
// NVLink bandwidth per link, GB/s, by compute capability x10 (ncclTopoNVLinkBw).
double nvlink_bw_per_link(int sm);
// Inter-socket bandwidth from the CPU's identity (ncclTopoGetInterCpuBw).
double inter_cpu_bw(const CpuDomain& cpu);
// The short name NCCL gives that CPU generation, for the summary: "SKL", "AMD", ...
std::string cpu_generation(const CpuDomain& cpu);
// NET bandwidth from a <net speed> in Mbps.
inline double net_bw_from_mbps(double mbps) { return (mbps > 0 ? mbps : kNetSpeedDefaultMbps) / 8000.0; }

}  // namespace meshbench::topology::nccl
