#include "mapping/plan_text.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "common/sizes.hpp"
#include "common/strings.hpp"
#include "mapping/nccl_tuning.hpp"

namespace meshbench::mapping {

namespace {

std::vector<std::string> dims_where(const Plan& p, const PlannedMapping& m, bool crossing) {
  std::vector<std::string> out;
  for (Dim d : active_dims(p)) {
    if (m[d].crosses_nodes == crossing) out.emplace_back(to_string(d));
  }
  return out;
}

// "pp (4 flows/NIC)" style list of the dimensions crossing nodes.
std::string across(const Plan& p, const PlannedMapping& m) {
  std::vector<std::string> items;
  for (Dim d : active_dims(p)) {
    if (m[d].crosses_nodes) items.push_back(std::string(to_string(d)) + "(" + std::to_string(m[d].nic_flows) + ")");
  }
  return items.empty() ? "-" : join(items, " ");
}

// The model line's first part: which model priced the plan, and for a calibrated one from what.
std::string model_line(const CostParams& c, bool gpus) {
  const std::string contention = std::string("NIC and PCIe contention ") + (c.contention ? "on" : "off");
  const std::string base = gpus && c.nccl_tuning ? "NCCL " + nccl::version_string(c.nccl_version) + "'s tuning model for GPU groups"
                                                 : std::string("alpha-beta per link class");
  if (!c.calibration) return base + ", " + contention;
  const Calibration& cal = *c.calibration;
  std::string s = "calibrated (" + std::to_string(cal.links.size()) + " link/op fits from " +
                  (cal.sources.empty() ? std::string("unnamed sources") : join(cal.sources, ", "));
  if (!cal.created_at.empty()) s += ", " + cal.created_at;
  s += ", measured on " + cal.topology_summary + "; NIC sharing k^";
  s += cal.sharing.nic_exponent ? fixed(*cal.sharing.nic_exponent, 2) : std::string("1 (not fitted)");
  return s + "), " + base + " where it fits nothing, " + contention;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s += std::string(width - s.size(), ' ');
  return s;
}

}  // namespace

std::vector<Dim> active_dims(const Plan& p) {
  const Layout& l = p.layout;
  std::vector<Dim> out;
  for (Dim d : kAllDims) {
    const int size = d == Dim::dp ? l.dp() * l.cp : l.size(d);
    if (size <= 1) continue;
    const bool shadow = (d == Dim::etp || d == Dim::edp) &&
                        std::none_of(p.mappings.begin(), p.mappings.end(), [d](const PlannedMapping& m) { return m[d].time_us > 0; });
    if (!shadow) out.push_back(d);
  }
  return out;
}

std::string format_time_us(double us) {
  if (us >= 1e6) return fixed(us / 1e6, 2) + " s";
  if (us >= 1e3) return fixed(us / 1e3, 2) + " ms";
  return fixed(us, 1) + " us";
}

std::string why_best(const Plan& p) {
  if (p.mappings.empty()) return "no candidates.";
  const PlannedMapping& best = p.mappings.front();
  const auto inside = dims_where(p, best, false);
  const auto crossing = dims_where(p, best, true);
  std::string s = best.mapping.name;
  if (!inside.empty()) s += " keeps " + join(inside, ", ") + " inside a node";
  if (!crossing.empty()) {
    int flows = 0;
    for (Dim d : active_dims(p)) flows = std::max(flows, best[d].crosses_nodes ? best[d].nic_flows : 0);
    s += std::string(inside.empty() ? "" : " and") + " sends " + (inside.empty() ? "" : "only ") + join(crossing, ", ") +
         " across nodes (" + std::to_string(flows) + (flows == 1 ? " flow" : " flows") + " per NIC at most)";
  } else if (inside.empty()) {
    s += " has no groups of more than one rank";
  }
  if (p.mappings.size() < 2) return s + "; it is the only distinct candidate.";
  const PlannedMapping& next = p.mappings[1];
  // Where the runner-up loses most.
  Dim worst = active_dims(p).empty() ? Dim::tp : active_dims(p).front();
  double gap = -1;
  for (Dim d : active_dims(p)) {
    if (next[d].time_us - best[d].time_us > gap) {
      gap = next[d].time_us - best[d].time_us;
      worst = d;
    }
  }
  std::vector<std::string> newly;
  for (Dim d : active_dims(p)) {
    if (next[d].crosses_nodes && !best[d].crosses_nodes) newly.emplace_back(to_string(d));
  }
  s += "; the runner-up " + next.mapping.name;
  if (!newly.empty()) {
    s += " sends " + join(newly, ", ") + " across nodes";
  } else if (next[worst].nic_flows > best[worst].nic_flows) {
    s += " puts " + std::to_string(next[worst].nic_flows) + " " + std::string(to_string(worst)) + " flows on a NIC instead of " +
         std::to_string(best[worst].nic_flows);
  } else if (next[worst].nodes_per_group > best[worst].nodes_per_group) {
    s += " spreads " + std::string(to_string(worst)) + " groups over " + std::to_string(next[worst].nodes_per_group) +
         " nodes instead of " + std::to_string(best[worst].nodes_per_group);
  } else {
    s += " places " + std::string(to_string(worst)) + " on slower paths";
  }
  const double ratio = best.predicted_total_us > 0 ? next.predicted_total_us / best.predicted_total_us : 1.0;
  if (ratio < 1.005) return s + ", and predicts the same time.";
  return s + ", " + fixed(ratio, ratio < 10 ? 2 : 1) + "x slower, mostly in " + std::string(to_string(worst)) + " (" +
         format_time_us(next[worst].time_us) + " vs " + format_time_us(best[worst].time_us) + ").";
}

std::string plan_text(const Plan& p, int top) {
  std::ostringstream out;
  const auto& t = p.topology;
  const bool uniform = std::all_of(t.slots_per_node.begin(), t.slots_per_node.end(), [&t](int s) { return s == t.slots_per_node.front(); });
  const std::string type = t.node_types.empty() || t.node_types.front().empty() ? "" : " (" + t.node_types.front() + ")";
  out << "topology: " << t.hostnames.size() << (t.hostnames.size() == 1 ? " node" : " nodes");
  if (uniform) out << " x " << t.slots_per_node.front() << " " << t.slot_kind << " slots" << type;
  out << ", " << t.slot_count() << " slots\n";
  const Layout& l = p.layout;
  out << "layout: TP" << l.tp << " CP" << l.cp << " PP" << l.pp << " EP" << l.ep << " ETP" << l.expert_tp() << " -> DP" << l.dp() << " EDP"
      << l.edp() << " (W=" << l.world << "), order " << l.order << "\n";
  out << "model: " << model_line(p.cost_model, t.slot_kind == "gpu") << "; ";
  if (p.workload && p.workload->name == kDefaultWorkloadName) {
    out << "no workload given: ranked by one training step of the workload '" << kDefaultWorkloadName << "' (" << p.workload->layers
        << " layers, hidden " << p.workload->hidden << ", " << p.workload->experts << " experts top-" << p.workload->top_k << ", sequence "
        << p.workload->seq_len << ", 8 micro-batches of 1; communication only; --workload FILE ranks by yours)\n";
  } else if (p.workload) {
    out << "times per training step of workload '" << (p.workload->name.empty() ? "unnamed" : p.workload->name)
        << "' (communication only, not overlapped)\n";
  } else {
    std::vector<std::string> sizes;
    for (auto b : p.cost_model.sweep_bytes) sizes.push_back(format_bytes(b));
    out << "no workload: each dimension's typical ops summed over " << join(sizes, ", ") << "\n";
  }
  out << "candidates: " << p.stats.generated << " generated, " << p.stats.distinct << " distinct (the search scored "
      << p.stats.search_evaluations << " placements)\n\n";

  const auto dims = active_dims(p);
  const int shown = top <= 0 ? static_cast<int>(p.mappings.size()) : std::min(top, static_cast<int>(p.mappings.size()));
  // Rows of cells; each column as wide as its widest cell.
  std::vector<std::vector<std::string>> rows{{"rank", "mapping", "inside a node", "across (flows/NIC)"}};
  for (Dim d : dims) rows.front().emplace_back(to_string(d));
  rows.front().emplace_back("total");
  for (int i = 0; i < shown; ++i) {
    const auto& m = p.mappings[static_cast<std::size_t>(i)];
    const auto inside = dims_where(p, m, false);
    std::vector<std::string> row{std::to_string(m.rank), m.mapping.name, inside.empty() ? "-" : join(inside, " "), across(p, m)};
    for (Dim d : dims) row.push_back(format_time_us(m[d].time_us));
    row.push_back(format_time_us(m.predicted_total_us));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t c = 0; c < rows[r].size(); ++c) out << (c + 1 < rows[r].size() ? pad(rows[r][c], width[c] + 2) : rows[r][c]);
    out << "\n";
    if (r == 0) continue;
    const auto& m = p.mappings[r - 1];
    out << std::string(width[0] + 2, ' ') << "order " << m.mapping.layout.order
        << (m.mapping.identity_placement() ? ", ranks in slot order" : ", placed by the mapping");
    if (!m.mapping.aliases.empty()) out << "; same as " << join(m.mapping.aliases, ", ");
    out << "\n";
  }
  if (shown < static_cast<int>(p.mappings.size()))
    out << "(" << p.mappings.size() - static_cast<std::size_t>(shown) << " more; --top 0 lists all)\n";
  out << "\nwhy: " << why_best(p) << "\n";
  if (!p.mappings.empty() && l.tp > 1) {
    const auto& tp = p.mappings.front()[Dim::tp];
    out << (tp.crosses_nodes ? "TP crosses nodes in the best mapping (" + std::to_string(tp.nodes_per_group) + " nodes per group)"
                             : "TP stays inside one node in the best mapping")
        << ".\n";
  }
  return out.str();
}

}  // namespace meshbench::mapping
