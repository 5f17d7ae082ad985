#include <algorithm>
#include <nlohmann/json.hpp>

#include "bench/run/run_plan.hpp"
#include "common/error.hpp"
#include "common/strings.hpp"

namespace meshbench::bench {

using nlohmann::json;

namespace {

json layout_to_wire(const mapping::Layout& l) {
  return {{"world", l.world}, {"tp", l.tp}, {"cp", l.cp}, {"pp", l.pp}, {"ep", l.ep}, {"etp", l.etp}, {"order", l.order}};
}

mapping::Layout layout_from_wire(const json& l) {
  return {l.at("world"), l.at("tp"), l.at("cp"), l.at("pp"), l.at("ep"), l.at("etp"), l.at("order")};
}

// The layout a mapping of `run` belongs to: its own with several layouts, else the run's.
const mapping::Layout& layout_named(const RunMappings& run, const std::string& name) {
  for (const auto& l : run.layouts) {
    if (l.name == name) return l.layout;
  }
  return run.layout;
}

}  // namespace

std::string to_wire(const RunMappings& run) {
  json j;
  j["layout"] = layout_to_wire(run.layout);
  for (const auto& l : run.layouts) {
    j["layouts"].push_back(
        {{"name", l.name}, {"layout", layout_to_wire(l.layout)}, {"workload_json", l.workload_json}, {"estimate_json", l.estimate_json}});
  }
  j["workload_json"] = run.workload_json;
  j["a2av_skew"] = run.a2av_skew;
  for (const auto& [dim, sizes] : run.workload_sizes) j["workload_sizes"][std::string(mapping::to_string(dim))] = sizes;
  for (std::size_t i = 0; i < run.mappings.size(); ++i) {
    const auto& m = run.mappings[i];
    json pm = {{"name", m.name}, {"how", m.how}, {"order", m.layout.order}, {"slot_of_rank", m.slot_of_rank}};
    if (!run.layout_of.empty()) pm["layout"] = run.layout_of[i];
    for (const auto& [k, v] : run.predicted_us[i]) pm["predicted_us"][k] = v;
    j["mappings"].push_back(pm);
  }
  return j.dump();
}

RunMappings from_wire(const std::string& text) {
  const json j = json::parse(text);
  RunMappings run;
  run.layout = layout_from_wire(j.at("layout"));
  for (const auto& l : j.value("layouts", json::array())) {
    run.layouts.push_back({l.at("name"), layout_from_wire(l.at("layout")), l.at("workload_json"), l.at("estimate_json")});
  }
  run.workload_json = j.value("workload_json", "");
  run.a2av_skew = j.value("a2av_skew", kDefaultRoutingSkew);
  if (j.contains("workload_sizes")) {
    for (const auto& [k, v] : j["workload_sizes"].items()) run.workload_sizes[*mapping::parse_dim(k)] = v.get<std::vector<std::uint64_t>>();
  }
  for (const auto& pm : j.value("mappings", json::array())) {
    if (pm.contains("layout")) run.layout_of.push_back(pm.at("layout"));
    auto layout = layout_named(run, pm.value("layout", ""));
    layout.order = pm.at("order");
    run.mappings.push_back(mapping::make_mapping(pm.at("name"), pm.at("how"), layout, pm.at("slot_of_rank").get<std::vector<int>>()));
    std::vector<std::pair<std::string, double>> predicted;
    if (pm.contains("predicted_us")) {
      for (const auto& [k, v] : pm["predicted_us"].items()) predicted.emplace_back(k, v.get<double>());
    }
    run.predicted_us.push_back(std::move(predicted));
  }
  return run;
}

void select_mappings(RunMappings& run, const std::vector<std::string>& names, int top, bool baseline) {
  std::vector<std::size_t> keep;
  std::vector<std::string> why;  // per kept mapping: why it is measured, when the selection is a prediction's
  if (!names.empty()) {
    for (const auto& name : names) {
      std::size_t i = 0;
      while (i < run.mappings.size() && run.mappings[i].name != name) ++i;
      if (i == run.mappings.size()) {
        throw InputError("no mapping named '" + name +
                         "' in the plan; known: " + join(run.mappings, ", ", [](const auto& m) { return m.name; }));
      }
      keep.push_back(i);
    }
  } else {
    // Each layout's mappings, best predicted first, follow one another.
    for (std::size_t begin = 0, end = 0; begin < run.mappings.size(); begin = end) {
      const std::string layout = run.layout_of.empty() ? "" : run.layout_of[begin];
      while (end < run.mappings.size() && (run.layout_of.empty() || run.layout_of[end] == layout)) ++end;
      const std::size_t count = end - begin;
      const std::size_t n = top > 0 ? std::min<std::size_t>(static_cast<std::size_t>(top), count) : count;
      const std::string of = " of " + std::to_string(count);
      for (std::size_t i = 0; i < n; ++i) {
        keep.push_back(begin + i);
        if (baseline) why.push_back("chosen by prediction (" + std::to_string(i + 1) + of + "): ");
      }
      // The layout's own order, as Megatron would launch it: what measurement compares the prediction's choice with.
      const std::string own = (layout.empty() ? "" : layout + "/") + "order:" + layout_named(run, layout).order;
      for (std::size_t i = n; baseline && i < count; ++i) {
        if (run.mappings[begin + i].name != own) continue;
        keep.push_back(begin + i);
        why.push_back("baseline, not chosen by prediction (" + std::to_string(i + 1) + of + "): ");
      }
    }
  }
  RunMappings out;
  out.layout = run.layout;
  for (const auto& l : run.layouts) {  // the layouts of the kept mappings
    const bool kept = std::any_of(keep.begin(), keep.end(), [&](std::size_t i) { return run.layout_of[i] == l.name; });
    if (kept) out.layouts.push_back(l);
  }
  out.workload_json = run.workload_json;
  out.workload_sizes = run.workload_sizes;
  out.plan_json = run.plan_json;
  out.calibration = run.calibration;
  for (std::size_t k = 0; k < keep.size(); ++k) {
    out.mappings.push_back(run.mappings[keep[k]]);
    if (k < why.size()) out.mappings.back().how = why[k] + out.mappings.back().how;
    out.predicted_us.push_back(run.predicted_us[keep[k]]);
    if (!run.layout_of.empty()) out.layout_of.push_back(run.layout_of[keep[k]]);
  }
  run = std::move(out);
}

}  // namespace meshbench::bench
