#include "analysis/report/gpu_health_report.hpp"

#include <cmath>
#include <map>
#include <set>

namespace meshbench::analysis {

namespace {

void add_reasons(std::set<std::string>& into, const std::string& names) {
  std::size_t from = 0;
  while (from < names.size()) {
    const auto comma = names.find(',', from);
    into.insert(names.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

void keep_max(double& into, double v) {
  if (!std::isnan(v) && (std::isnan(into) || v > into)) into = v;
}
void keep_min(double& into, double v) {
  if (!std::isnan(v) && (std::isnan(into) || v < into)) into = v;
}

}  // namespace

GpuHealthSection gpu_health_section(const results::ResultsFile& file, const std::vector<HostTally>& slow_hosts) {
  GpuHealthSection s;
  s.host_copies = file.host_copies();
  const auto& rows = file.gpu_health();
  s.sampled = !rows.empty();
  s.rounds = file.run().rounds;
  std::set<results::PointVisit> dropped;
  for (const auto& p : file.state_probes()) {
    if (!p.kept) dropped.insert(results::visit_of(p, file.layout_key_of(p.point.mapping)));
  }
  struct HostRun {
    HostGpuHealth health;
    std::set<std::string> gpus, reasons;
    std::set<results::PointVisit> throttled;
  };
  std::map<std::string, HostRun> hosts;
  for (const auto& r : rows) {
    auto& h = hosts[r.host];
    if (h.gpus.empty()) {
      h.health.host = r.host;
      h.health.temperature_max_c = std::nan("");
      h.health.sm_clock_min_mhz = std::nan("");
    }
    h.gpus.insert(r.bus_id.empty() ? std::to_string(r.gpu) : r.bus_id);
    keep_max(h.health.temperature_max_c, r.temperature_max_c);
    keep_min(h.health.sm_clock_min_mhz, r.sm_clock_min_mhz);
    // Counters grow from one visit to the next: their deltas add up over the run, re-measured visits too.
    h.health.ecc_corrected += std::max<std::int64_t>(r.ecc_corrected, 0);
    h.health.ecc_uncorrected += std::max<std::int64_t>(r.ecc_uncorrected, 0);
    h.health.pcie_replays += std::max<std::int64_t>(r.pcie_replays, 0);
    const auto visit = results::visit_of(r, file.layout_key_of(r.point.mapping));
    if (r.throttle.empty() || dropped.count(visit) != 0) continue;
    add_reasons(h.reasons, r.throttle);
    h.throttled.insert(visit);
    s.throttled.push_back({visit, r.host, r.rank, r.bus_id, r.throttle, r.throttled_readings, r.readings});
  }
  for (auto& [name, h] : hosts) {
    h.health.gpus = static_cast<int>(h.gpus.size());
    h.health.reasons = joined(h.reasons);
    h.health.throttled_points = static_cast<int>(h.throttled.size());
    for (const auto& t : slow_hosts) {
      if (t.host != name) continue;
      h.health.slowest_only = t.slowest_only;
      h.health.points = t.points;
    }
    s.hosts.push_back(h.health);
  }
  return s;
}

}  // namespace meshbench::analysis
