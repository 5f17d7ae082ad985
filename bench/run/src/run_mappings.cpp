#include "bench/run/run_plan.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "mapping/candidates.hpp"
#include "mapping/cost_model.hpp"
#include "mapping/plan.hpp"
#include "mapping/plan_set.hpp"
#include "mapping/workload.hpp"

namespace meshbench::bench {

namespace {

mapping::CostParams cost_params(const RunConfig& config, const topology::ClusterTopology& topology,
                                const std::optional<mapping::Calibration>& calibration, bool with_workload) {
  auto params = mapping::default_cost_params(topology);
  if (!config.cost_model_file.empty()) {
    params = mapping::load_cost_params(config.cost_model_file, params);
    if (params.calibration) mapping::check_calibration_topology(*params.calibration, topology, config.cost_model_file);
  }
  if (calibration) params.calibration = calibration;
  params.a2av_skew = config.run.a2av_skew;  // the plan prices the skew this run draws
  // Without a workload the plan sums each op over the sweep; charging the sizes this run measures
  // keeps the predicted order and the measured one about the same function.
  if (!with_workload && !config.workload_sizes && !config.run.sizes.empty()) params.sweep_bytes = config.run.sizes;
  return params;
}

mapping::PlanSet make_or_load_plans(const RunConfig& config, const topology::ClusterTopology& topology,
                                    const std::optional<mapping::Calibration>& calibration) {
  if (!config.plan_file.empty()) {
    auto set = mapping::load_plan_set(config.plan_file);
    mapping::check_plan_matches(set.layouts.front().plan, topology);  // the set's layouts share one cluster
    mapping::prefix_mapping_names(set);
    return set;
  }
  mapping::Layout layout = config.layout;
  layout.world = topology.slot_count();
  mapping::validate(layout);
  std::optional<mapping::Workload> workload;
  if (!config.workload_file.empty()) {
    workload = mapping::load_workload(config.workload_file);
    mapping::check_workload(*workload, layout);
  }
  const mapping::CostModel model(topology, cost_params(config, topology, calibration, workload.has_value()), workload);
  auto ranked = mapping::generate_candidates(layout, topology, model,
                                             {.random_seed = config.run.seed, .random_placements = config.run.random_placements});
  std::vector<mapping::Plan> plans;
  plans.push_back(mapping::make_plan(layout, model, topology, std::move(ranked)));
  return mapping::make_plan_set(std::move(plans));
}

}  // namespace

RunMappings choose_run_mappings(const RunConfig& config, const topology::ClusterTopology& topology,
                                const std::optional<mapping::Calibration>& calibration) {
  mapping::PlanSet set = make_or_load_plans(config, topology, calibration);
  const bool several = set.layouts.size() > 1;
  const mapping::Plan& first = set.layouts.front().plan;
  RunMappings run;
  run.calibration = first.cost_model.calibration;
  run.a2av_skew = first.cost_model.a2av_skew;
  run.layout = first.layout;
  run.plan_json = several ? mapping::plan_set_to_json(set).dump() : mapping::plan_to_json(first, true).dump();
  if (first.workload) run.workload_json = mapping::to_json(*first.workload).dump();
  // With --sizes workload, a dimension measures every size any layout's step sends in it.
  std::map<mapping::Dim, std::set<std::uint64_t>> sizes;
  for (auto& [name, plan, estimate] : set.layouts) {
    if (several) {
      run.layouts.push_back(
          {name, plan.layout, plan.workload ? mapping::to_json(*plan.workload).dump() : "", estimate ? estimate->dump() : ""});
    }
    if (plan.workload) {
      for (const auto& t : mapping::step_traffic(*plan.workload, plan.layout)) sizes[t.dim].insert(t.bytes);
    }
    for (auto& pm : plan.mappings) {
      std::vector<std::pair<std::string, double>> predicted;
      for (mapping::Dim d : mapping::kAllDims) {
        if (plan.layout.size(d) > 1) predicted.emplace_back(std::string(mapping::to_string(d)), pm[d].time_us);
      }
      predicted.emplace_back("step", pm.predicted_total_us);
      run.predicted_us.push_back(std::move(predicted));
      run.mappings.push_back(std::move(pm.mapping));
      if (several) run.layout_of.push_back(name);
    }
  }
  for (const auto& [dim, s] : sizes) run.workload_sizes[dim] = {s.begin(), s.end()};
  return run;
}

}  // namespace meshbench::bench
