// The report's GPU section: throttled points, hosts' GPU health beside their slow-group tally,
// and host<->GPU copy bandwidth.
#include <cmath>

#include "analysis/report/src/report_tables.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis::detail {

namespace {
std::string figure(double v, int digits) { return std::isnan(v) ? "-" : fixed(v, digits); }
}  // namespace

std::vector<std::string> throttled_point_lines(const Report& report) {
  const auto& g = report.gpu_health;
  std::vector<std::string> out;
  if (g.throttled.empty()) {
    out.push_back("no GPU throttled during any measured point (NVML's power, thermal and slowdown reasons)");
    return out;
  }
  for (const auto& t : g.throttled) {
    const auto& k = t.visit.point;
    out.push_back("THROTTLED " + rank_label(report, k.mapping) + " " + k.mapping + " " + k.dim + " " + k.op + " " + format_bytes(k.bytes) +
                  " " + k.timing + (k.concurrency == "isolated" ? " isolated" : "") +
                  (g.rounds > 1 ? " round " + std::to_string(t.visit.round + 1) : "") + ": " + t.host + " rank " + std::to_string(t.rank) +
                  " GPU " + t.bus_id + " " + t.reasons + " in " + std::to_string(t.throttled_readings) + " of " +
                  std::to_string(t.readings) + " readings");
  }
  return out;
}

Table gpu_host_table(const Report& report) {
  Table t({"host", ">GPUs", ">throttled points", "reasons", ">max C", ">min SM MHz", ">ECC corrected", ">ECC uncorrected", ">PCIe replays",
           ">in slowest group"});
  for (const auto& h : report.gpu_health.hosts) {
    t.add({h.host, std::to_string(h.gpus), std::to_string(h.throttled_points), h.reasons.empty() ? "-" : h.reasons,
           figure(h.temperature_max_c, 0), figure(h.sm_clock_min_mhz, 0), std::to_string(h.ecc_corrected),
           std::to_string(h.ecc_uncorrected), std::to_string(h.pcie_replays),
           h.points > 0 ? std::to_string(h.slowest_only) + " of " + std::to_string(h.points) : "-"});
  }
  return t;
}

Table host_copy_table(const Report& report) {
  Table t({"host", ">rank", "GPU", "memory", ">NUMA node", "direction", ">size", ">median GB/s", ">best GB/s"});
  for (const auto& c : report.gpu_health.host_copies) {
    t.add({c.host, std::to_string(c.rank), c.bus_id, c.locality, std::to_string(c.numa_node), c.direction, format_bytes(c.bytes),
           fixed(c.gbps_median, 1), fixed(c.gbps_max, 1)});
  }
  return t;
}

}  // namespace meshbench::analysis::detail
