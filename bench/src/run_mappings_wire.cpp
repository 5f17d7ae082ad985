#include <nlohmann/json.hpp>

#include "bench/run_mappings.hpp"
#include "common/error.hpp"
#include "common/strings.hpp"

namespace meshbench::bench {

using nlohmann::json;

std::string to_wire(const RunMappings& run) {
  json j;
  const auto& l = run.layout;
  j["layout"] = {{"world", l.world}, {"tp", l.tp}, {"cp", l.cp}, {"pp", l.pp}, {"ep", l.ep}, {"etp", l.etp}, {"order", l.order}};
  j["workload_json"] = run.workload_json;
  for (const auto& [dim, sizes] : run.workload_sizes) j["workload_sizes"][std::string(mapping::to_string(dim))] = sizes;
  for (std::size_t i = 0; i < run.mappings.size(); ++i) {
    const auto& m = run.mappings[i];
    json pm = {{"name", m.name}, {"how", m.how}, {"order", m.layout.order}, {"slot_of_rank", m.slot_of_rank}};
    for (const auto& [k, v] : run.predicted_us[i]) pm["predicted_us"][k] = v;
    j["mappings"].push_back(pm);
  }
  return j.dump();
}

RunMappings from_wire(const std::string& text) {
  const json j = json::parse(text);
  RunMappings run;
  const auto& l = j.at("layout");
  run.layout = {l.at("world"), l.at("tp"), l.at("cp"), l.at("pp"), l.at("ep"), l.at("etp"), l.at("order")};
  run.workload_json = j.value("workload_json", "");
  if (j.contains("workload_sizes")) {
    for (const auto& [k, v] : j["workload_sizes"].items()) run.workload_sizes[*mapping::parse_dim(k)] = v.get<std::vector<std::uint64_t>>();
  }
  for (const auto& pm : j.value("mappings", json::array())) {
    auto layout = run.layout;
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
    const std::size_t n = top > 0 ? std::min<std::size_t>(static_cast<std::size_t>(top), run.mappings.size()) : run.mappings.size();
    const std::string of = " of " + std::to_string(run.mappings.size());
    for (std::size_t i = 0; i < n; ++i) {
      keep.push_back(i);
      if (baseline) why.push_back("chosen by prediction (" + std::to_string(i + 1) + of + "): ");
    }
    // The layout's own order, as Megatron would launch it: what measurement compares the prediction's choice with.
    const std::string own = "order:" + run.layout.order;
    for (std::size_t i = n; baseline && i < run.mappings.size(); ++i) {
      if (run.mappings[i].name != own) continue;
      keep.push_back(i);
      why.push_back("baseline, not chosen by prediction (" + std::to_string(i + 1) + of + "): ");
    }
  }
  RunMappings out;
  out.layout = run.layout;
  out.workload_json = run.workload_json;
  out.workload_sizes = run.workload_sizes;
  out.plan_json = run.plan_json;
  out.calibration = run.calibration;
  for (std::size_t k = 0; k < keep.size(); ++k) {
    out.mappings.push_back(run.mappings[keep[k]]);
    if (k < why.size()) out.mappings.back().how = why[k] + out.mappings.back().how;
    out.predicted_us.push_back(run.predicted_us[keep[k]]);
  }
  run = std::move(out);
}

}  // namespace meshbench::bench
