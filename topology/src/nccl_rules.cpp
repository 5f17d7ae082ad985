#include "topology/src/nccl_rules.hpp"

#include <array>
#include <cmath>
#include <utility>

namespace meshbench::topology::nccl {

namespace {

// kvDictPciGen (xml.cc): per-lane speed in 100 Mbps units, matched by prefix in this order;
// anything else counts as 60 (Gen3).
constexpr std::array<std::pair<std::string_view, int>, 11> kPciGen = {{
    {"2.5 GT/s", 15},
    {"5 GT/s", 30},
    {"8 GT/s", 60},
    {"16 GT/s", 120},
    {"32 GT/s", 240},
    {"2.5 GT/s PCIe", 15},
    {"5.0 GT/s PCIe", 30},
    {"8.0 GT/s PCIe", 60},
    {"16.0 GT/s PCIe", 120},
    {"32.0 GT/s PCIe", 240},
    {"64.0 GT/s PCIe", 480},
}};
constexpr int kPciGenDefault = 60;

// ncclTopoNVLinkBw: GB/s per link by compute capability (sm x10), first match wins.
struct NvlRule {
  int min_sm;
  bool exact;
  double bw;
};
constexpr std::array<NvlRule, 6> kNvlink = {{
    {100, false, 40.1},  // SM100_NVLINK_BW
    {90, false, 20.6},   // SM90_NVLINK_BW
    {86, true, 12.0},    // SM86_NVLINK_BW
    {80, false, 20.0},   // SM80_NVLINK_BW
    {70, false, 20.0},   // SM70_NVLINK_BW
    {60, false, 18.0},   // SM60_NVLINK_BW
}};
constexpr double kNvlinkFallback = 20.0;  // SM80_NVLINK_BW for anything older or unknown

// Inter-socket bandwidths, GB/s (topo.h).
constexpr double kBdwQpi = 6.0, kSklQpi = 10.0, kSrpQpi = 22.0, kErpQpi = 40.0;
constexpr double kAmd = 16.0, kZpi = 6.0, kYongfengZpi = 9.0, kP9 = 32.0, kArm = 6.0;
// Intel family 6 model thresholds: Emerald Rapids, Sapphire Rapids, Skylake.
constexpr int kIntelErpModel = 0xCF, kIntelSrpModel = 0x8F, kIntelSklModel = 0x55;

bool is_zhaoxin(const std::string& vendor) { return vendor == "CentaurHauls" || vendor == "  Shanghai  "; }

bool is_x86(const CpuDomain& cpu) {
  return cpu.arch == "x86_64" || (cpu.arch.empty() && (cpu.vendor == "GenuineIntel" || cpu.vendor == "AuthenticAMD"));
}

}  // namespace

double pci_link_bw(std::string_view link_speed, int link_width) {
  int speed = kPciGenDefault;
  for (const auto& [prefix, value] : kPciGen) {
    if (link_speed.substr(0, prefix.size()) == prefix) {
      speed = value;
      break;
    }
  }
  const int width = link_width == 0 ? 16 : link_width;
  return width * speed / 80.0;
}

double pci_link_bw_from_hwloc(double hwloc_gbps) {
  if (hwloc_gbps <= 0) return kPciBwDefault;
  // hwloc reports lanes x GT/s x encoding / 8. Gen1/2 (8b/10b) rates are multiples of
  // 0.25 GB/s; Gen3 and later carry the 128/130 factor. NCCL's per-lane table is
  // proportional to GT/s within each family, so one factor per family converts exactly.
  // hwloc stores a float; NCCL's result is width * speed / 80, a multiple of 1/80.
  const auto on_nccl_grid = [](double bw) { return std::round(bw * 80.0) / 80.0; };
  const double quarters = hwloc_gbps / 0.25;
  if (std::fabs(quarters - std::round(quarters)) < 1e-4) return on_nccl_grid(hwloc_gbps * (15.0 / 80.0) / 0.25);
  return on_nccl_grid(hwloc_gbps * (60.0 / 80.0) / (8.0 * 128.0 / 130.0 / 8.0));
}

double nvlink_bw_per_link(int sm) {
  for (const auto& rule : kNvlink) {
    if (rule.exact ? sm == rule.min_sm : sm >= rule.min_sm) return rule.bw;
  }
  return kNvlinkFallback;
}

double inter_cpu_bw(const CpuDomain& cpu) {
  if (cpu.arch == "ppc64") return kP9;
  if (cpu.arch == "arm64") return kArm;
  if (is_x86(cpu)) {
    if (cpu.vendor == "GenuineIntel") {
      if (cpu.family != 6) return kBdwQpi;
      return cpu.model >= kIntelErpModel   ? kErpQpi
             : cpu.model >= kIntelSrpModel ? kSrpQpi
             : cpu.model >= kIntelSklModel ? kSklQpi
                                           : kBdwQpi;
    }
    if (cpu.vendor == "AuthenticAMD") return kAmd;
    if (is_zhaoxin(cpu.vendor)) return cpu.family == 7 && cpu.model == 0x5B ? kYongfengZpi : kZpi;
  }
  return kLocBw;  // NCCL starts from LOC_BW and keeps it when it recognises nothing
}

std::string cpu_generation(const CpuDomain& cpu) {
  if (cpu.arch == "ppc64") return "POWER";
  if (cpu.arch == "arm64") return "ARM";
  if (!is_x86(cpu)) return "unknown CPU";
  if (cpu.vendor == "GenuineIntel") {
    if (cpu.family != 6) return "BDW";
    return cpu.model >= kIntelErpModel ? "ERP" : cpu.model >= kIntelSrpModel ? "SRP" : cpu.model >= kIntelSklModel ? "SKL" : "BDW";
  }
  if (cpu.vendor == "AuthenticAMD") return "AMD";
  if (is_zhaoxin(cpu.vendor)) return "Zhaoxin";
  return "unknown x86";
}

}  // namespace meshbench::topology::nccl
