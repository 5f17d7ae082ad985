// meshbench explore: which layout, not only which placement.
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "explore_measured.hpp"
#include "explore_options.hpp"
#include "explore_output.hpp"
#include "mapping/commands.hpp"
#include "mapping/explore.hpp"
#include "mapping/exports.hpp"
#include "mapping/plan.hpp"
#include "mapping/plan_set.hpp"
#include "mapping/workload_file.hpp"
#include "topology/gpu_specs.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {

namespace {

topology::ClusterTopology load_topology(const ExploreOptions& o) {
  const int slots = o.cpu_slots > 0 ? o.cpu_slots : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  // --cpu-slots S --nodes N: N nodes like this one with S CPU slots each (the local test cluster).
  if (o.cpu_slots > 0 && o.topology.file.empty() && o.topology.node_type.empty() && o.topology.nodes > 0) {
    return topology::ClusterTopology::replicate(topology::discover_this_node(slots), o.topology.nodes);
  }
  if (o.topology.given()) return topology::load_offline_topology(o.topology, false);
  return topology::ClusterTopology::from_nodes({topology::discover_this_node(slots)});
}

ExploreHardware hardware_of(const topology::ClusterTopology& topo, const ExploreOptions& o) {
  ExploreHardware hw;
  const auto& node = topo.node(0);
  hw.gpus_per_node = static_cast<int>(node.slots.size());
  hw.gpu_model = node.slots.empty() ? std::string() : node.slots.front().model;
  const auto spec = topology::find_gpu_spec(hw.gpu_model);
  if (spec) {
    hw.memory_gib = spec->memory_gib;
    hw.bf16_tflops = spec->bf16_tflops;
    hw.fp8_tflops = spec->fp8_tflops;
    hw.hbm_tbps = spec->hbm_tbps;
  }
  if (o.gpu_memory > 0) hw.memory_gib = o.gpu_memory;
  if (hw.memory_gib <= 0) {
    throw InputError("the memory of '" + (hw.gpu_model.empty() ? std::string("these slots") : hw.gpu_model) +
                     "' is not known; pass --gpu-memory GIB (and --peak-tflops for its compute)");
  }
  if (o.peak_tflops > 0) {
    hw.bf16_tflops = o.peak_tflops;
    hw.fp8_tflops = o.precision == "fp8" ? o.peak_tflops : 0;
  }
  if (hw.bf16_tflops <= 0) throw InputError("the compute peak of '" + hw.gpu_model + "' is not known; pass --peak-tflops T");
  return hw;
}

// What `run` measures of one layout: the planner's best placement and Megatron's own order
// (the identity placement) as the baseline.
Plan measured_plan(LayoutEstimate& e, const CostModel& model, const topology::ClusterTopology& topo) {
  if (!e.candidates) e.candidates = generate_candidates(e.layout.layout, topo, model, {.random_placements = 0, .with_groups = false});
  Plan plan = make_plan(e.layout.layout, model, topo, *e.candidates);
  std::vector<PlannedMapping> kept;
  for (auto& m : plan.mappings) {
    const bool best = kept.empty();
    const bool baseline = m.mapping.identity_placement() && m.mapping.layout.order == e.layout.layout.order;
    if (best || baseline) kept.push_back(std::move(m));
    if (kept.size() == 2 || (best && baseline)) break;
  }
  for (std::size_t i = 0; i < kept.size(); ++i) kept[i].rank = static_cast<int>(i) + 1;
  plan.mappings = std::move(kept);
  return plan;
}

// The estimate a plan file keeps for `report` to print beside the measurement.
nlohmann::json plan_estimate(const LayoutEstimate& e, int rank, const ExploreHardware& hw) {
  return {{"explore_rank", rank},
          {"vpp", e.layout.vpp},
          {"step_ms", e.step_us / 1000.0},
          {"compute_ms", e.compute_us / 1000.0},
          {"bubble_ms", e.bubble_us / 1000.0},
          {"comm_exposed_ms", e.comm.exposed_us / 1000.0},
          {"comm_total_ms", (e.comm.exposed_us + e.comm.overlapped_us) / 1000.0},
          {"memory_max_gib", e.memory.maximum.total() / kBytesPerGiB},
          {"memory_limit_gib", hw.memory_gib}};
}

// The best `top` layouts and the best of each EP size, one per distinct layout (plan files name
// layouts by their sizes, which do not include VPP).
PlanSet explore_plan_set(ExploreResult& result, int top, const CostModel& model, const topology::ClusterTopology& topo,
                         const ExploreHardware& hw) {
  std::vector<std::size_t> chosen;
  auto choose = [&](std::size_t i) {
    for (std::size_t c : chosen) {
      if (result.ranked[c].layout.layout == result.ranked[i].layout.layout) return;
    }
    chosen.push_back(i);
  };
  for (std::size_t i = 0; i < result.ranked.size() && static_cast<int>(chosen.size()) < top; ++i) choose(i);
  std::map<int, std::size_t> best_of_ep;
  for (std::size_t i = 0; i < result.ranked.size(); ++i) best_of_ep.emplace(result.ranked[i].layout.layout.ep, i);
  if (best_of_ep.size() > 1) {
    for (const auto& [ep, i] : best_of_ep) choose(i);
  }
  std::vector<Plan> plans;
  std::vector<std::optional<nlohmann::json>> estimates;
  for (std::size_t i : chosen) {
    plans.push_back(measured_plan(result.ranked[i], model, topo));
    estimates.emplace_back(plan_estimate(result.ranked[i], static_cast<int>(i) + 1, hw));
  }
  return make_plan_set(std::move(plans), estimates);
}

CostParams cost_params_of(const ExploreOptions& o, const topology::ClusterTopology& topo) {
  CostParams params = default_cost_params(topo);
  if (!o.cost_model.empty()) params = load_cost_params(o.cost_model, params);
  if (o.no_contention) params.contention = false;
  // One routing skew for the step's all-to-all, the memory of the routed tokens and --out's plan
  // (which run measures): --a2av-skew, else a --cost-model file's, else the default.
  if (o.skew_given) params.a2av_skew = o.skew;
  return params;
}

// --out's plan, --export's launch files and the ranking on stdout.
void write_outputs(ExploreResult& result, const ExploreOptions& o, const ExploreReportContext& context, const CostModel& model) {
  const topology::ClusterTopology& topo = *context.topology;
  if (!o.out.empty()) write_plan_set(explore_plan_set(result, o.out_top, model, topo, *context.hardware), o.out, o.force);
  if (!o.export_dir.empty()) {
    const LayoutEstimate& best = result.ranked.front();
    if (!best.candidates) throw InputError("--export needs the planner's placement of the best layout; raise --plan-top above 0");
    const Plan plan = make_plan(best.layout.layout, model, topo, *best.candidates);
    export_mapping(plan, plan.mappings.front(), o.export_dir, o.force);
  }
  if (o.output == OutputFormat::json) {
    std::cout << explore_json(result, context).dump(2) << "\n";
  } else {
    std::cout << explore_text(result, context, o.top);
    if (!o.out.empty()) std::cout << "plan of the best layouts written to " << o.out << " (meshbench run --plan " << o.out << ")\n";
    if (!o.export_dir.empty()) std::cout << "launch files of the best layout written to " << o.export_dir << "/\n";
  }
}

}  // namespace

int explore_command(const Args& args) {
  const auto parsed = parse_explore_options(args);
  if (!parsed) return kExitOk;
  const ExploreOptions& o = *parsed;
  const ExploreConstraints constraints = constraints_of(o);
  const WorkloadFile file = read_workload_file(o.workload);
  TrainingSettings settings = settings_of(o, file.workload);
  const auto topo = load_topology(o);
  const ExploreHardware hw = hardware_of(topo, o);
  const CostParams params = cost_params_of(o, topo);
  settings.routing_skew = params.a2av_skew;
  std::optional<MeasuredFit> fit;
  if (!o.measured.empty()) {
    const MeasuredRun run = measured_run_of(o, settings, file.workload, topo.slot_count());
    fit = fit_to_measured(file.workload, run, hw, topo, params);
    settings.compute_efficiency = fit->efficiency_after;
    settings.comm_overlap = fit->overlap_after;
  }
  const Workload w = workload_for_step(file.workload, settings);
  const CostModel model(topo, params, w);
  if (!o.export_dir.empty() && !o.force && std::filesystem::exists(o.export_dir + "/megatron_args.txt")) {
    throw InputError("'" + o.export_dir + "/megatron_args.txt' exists; pass --force to overwrite it");
  }
  ExploreResult result = explore(w, settings, constraints, hw, topo, model, o.plan_top);
  write_outputs(result, o, {&w, &settings, &hw, &topo, o.workload, file.notes, fit, o.measured}, model);
  return kExitOk;
}

}  // namespace meshbench::mapping
