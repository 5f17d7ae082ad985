#include "analysis/report/layout_ranking.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "analysis/report/src/report_tables.hpp"
#include "analysis/report/text_table.hpp"
#include "results/point_key.hpp"

namespace meshbench::analysis {

namespace {

void add_scalars(const nlohmann::json& j, const std::string& prefix, std::string& out) {
  for (const auto& [key, value] : j.items()) {
    const std::string name = prefix.empty() ? key : prefix + "." + key;
    std::string text;
    if (value.is_object()) {
      add_scalars(value, name, out);
      continue;
    }
    if (value.is_number_integer()) {
      text = std::to_string(value.get<long long>());
    } else if (value.is_number()) {
      text = sig3(value.get<double>());
    } else if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_boolean()) {
      text = value.get<bool>() ? "true" : "false";
    } else {
      continue;  // lists and nulls: in the JSON report only
    }
    out += (out.empty() ? "" : ", ") + name + " " + text;
  }
}

}  // namespace

std::string estimate_text(const std::string& estimate_json) {
  if (estimate_json.empty()) return "";
  const auto j = nlohmann::json::parse(estimate_json, nullptr, false);
  if (j.is_discarded()) return "";
  if (!j.is_object()) return j.dump();
  std::string out;
  add_scalars(j, "", out);
  return out;
}

std::optional<EstimatedMemory> estimated_memory(const std::string& estimate_json) {
  if (estimate_json.empty()) return std::nullopt;
  const auto j = nlohmann::json::parse(estimate_json, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  const auto need = j.find("memory_max_gib"), limit = j.find("memory_limit_gib");
  if (need == j.end() || limit == j.end() || !need->is_number() || !limit->is_number() || limit->get<double>() <= 0) return std::nullopt;
  return EstimatedMemory{need->get<double>(), limit->get<double>()};
}

std::string layout_sizes(const results::LayoutRecord& l) {
  return "TP" + std::to_string(l.tp) + " CP" + std::to_string(l.cp) + " PP" + std::to_string(l.pp) + " EP" + std::to_string(l.ep) + " ETP" +
         std::to_string(l.etp) + " -> DP" + std::to_string(l.dp) + " EDP" + std::to_string(l.edp);
}

Table layouts_table(const LayoutRanking& layouts) {
  const auto unit = detail::time_unit_for(layouts.rows.empty() ? 0 : layouts.rows.front().best_us);
  const std::string per_step = std::string(unit.name) + "/step";
  Table t({">rank", "layout", "sizes", "best mapping", ">comm " + per_step, ">vs best", "baseline", ">baseline " + per_step, "estimate"});
  for (const auto& r : layouts.rows) {
    const bool has = !r.best_mapping.empty(), baseline = !r.baseline_mapping.empty();
    t.add({has ? std::to_string(r.rank) : "-", r.name, r.sizes, has ? r.best_mapping : "-", has ? sig3(r.best_us / unit.divisor) : "-",
           has ? fixed(r.vs_best, 2) + "x" : "-", baseline ? r.baseline_mapping : "-", baseline ? sig3(r.baseline_us / unit.divisor) : "-",
           estimate_text(r.estimate_json)});
  }
  return t;
}

std::optional<LayoutRanking> rank_layouts(const results::ResultsFile& file, const Ranking& ranking) {
  if (!file.several_layouts()) return std::nullopt;
  LayoutRanking out;
  const bool measured = ranking.basis == Ranking::Basis::workload;
  if (!measured)
    out.note = "layouts are ranked by communication per step, which needs a workload: the file stores none; pass --workload FILE";
  for (const auto& l : file.layouts()) {
    LayoutRow row;
    row.name = l.name;
    row.layout = results::layout_key(l.layout);
    row.sizes = layout_sizes(l.layout);
    row.estimate_json = l.estimate_json;
    const std::string own = l.name + "/order:" + l.layout.order;
    for (const auto& m : ranking.mappings) {  // best first, complete ones first
      const auto* record = file.find_mapping(m.name);
      if (record == nullptr || record->layout != l.name || !m.complete || !measured) continue;
      if (row.best_mapping.empty()) {
        row.best_mapping = m.name;
        row.best_us = m.score;
      }
      if (m.name == own || (row.baseline_mapping.empty() && m.how.starts_with("baseline"))) {
        row.baseline_mapping = m.name;
        row.baseline_us = m.score;
      }
    }
    out.rows.push_back(std::move(row));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const LayoutRow& a, const LayoutRow& b) {
    if (a.best_mapping.empty() != b.best_mapping.empty()) return b.best_mapping.empty();
    return a.best_us < b.best_us;
  });
  const double best = out.rows.front().best_us;
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    auto& r = out.rows[i];
    if (r.best_mapping.empty()) continue;
    r.rank = static_cast<int>(i) + 1;
    r.vs_best = best > 0 ? r.best_us / best : 1;
  }
  return out;
}

}  // namespace meshbench::analysis
