// meshbench explore: which layout, not only which placement.
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "common/error.hpp"
#include "common/strings.hpp"
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

struct ExploreOptions {
  topology::TopologyOptions topology;
  int cpu_slots = 0;
  std::string workload, cost_model, format, export_dir, out, recompute = "selective", precision = "bf16";
  std::string tp, cp, pp, vpp, ep, etp;
  int micro_batch = 0, global_batch = 0, top = 10, plan_top = 5, out_top = 2;
  double gpu_memory = 0, headroom = 0, efficiency = 0.5, skew = 0, allowance = 3.0;
  bool tp_across_nodes = false, no_distributed_optimizer = false, bf16_moments = false, no_sequence_parallel = false, ep_overlap = false,
       no_contention = false, force = false;
};

// "8", "2,4,8" or "1-8" (the sizes in that range that divide nothing in particular: every integer).
std::vector<int> parse_sizes(const std::string& text, const char* option) {
  std::vector<int> out;
  if (text.empty()) return out;
  auto number = [&](const std::string& s) {
    std::size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || v < 1) {
      throw InputError(std::string("--") + option + " '" + text + "' is not a size list; give N, N,M,... or A-B with sizes >= 1");
    }
    return v;
  };
  std::istringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    const auto dash = part.find('-');
    if (dash == std::string::npos) {
      out.push_back(number(part));
      continue;
    }
    const int lo = number(part.substr(0, dash)), hi = number(part.substr(dash + 1));
    if (lo > hi) throw InputError(std::string("--") + option + " range '" + part + "' runs backwards; write A-B with A <= B");
    for (int v = lo; v <= hi; ++v) out.push_back(v);
  }
  return out;
}

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
          {"memory_max_gib", e.memory.maximum.total() / (1024.0 * 1024.0 * 1024.0)},
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

}  // namespace

int explore_command(const Args& args) {
  ExploreOptions o;
  double peak_tflops = 0;
  po::options_description options("options");
  topology::add_topology_options(options, o.topology);
  // clang-format off
  options.add_options()
      ("cpu-slots", po::value<int>(&o.cpu_slots)->default_value(0, "hardware threads")->value_name("N"),
       "without a node type or topology file: how many CPU slots this node has (with --nodes N: N such nodes)")
      ("workload", po::value<std::string>(&o.workload)->value_name("MODEL"),
       "the model: a Hugging Face config.json, a Megatron-LM launch script or a meshbench workload file (required)")
      ("tp", po::value<std::string>(&o.tp)->value_name("SIZES"), "tensor-parallel sizes to try: N, N,M,... or A-B (default: every valid one)")
      ("cp", po::value<std::string>(&o.cp)->value_name("SIZES"), "context-parallel sizes to try")
      ("pp", po::value<std::string>(&o.pp)->value_name("SIZES"), "pipeline-parallel sizes to try")
      ("vpp", po::value<std::string>(&o.vpp)->value_name("SIZES"), "virtual pipeline stages per rank to try (default 1-8)")
      ("ep", po::value<std::string>(&o.ep)->value_name("SIZES"), "expert-parallel sizes to try")
      ("etp", po::value<std::string>(&o.etp)->value_name("SIZES"), "expert tensor-parallel sizes to try")
      ("tp-across-nodes", po::bool_switch(&o.tp_across_nodes), "allow TP and ETP groups wider than a node")
      ("micro-batch", po::value<int>(&o.micro_batch)->default_value(0, "the workload's, else 1")->value_name("B"), "sequences per micro-batch")
      ("global-batch", po::value<int>(&o.global_batch)->default_value(0, "the workload's, else 1024")->value_name("G"), "sequences per step")
      ("recompute", po::value<std::string>(&o.recompute)->default_value("selective"), "activation recompute: none | selective | full")
      ("no-distributed-optimizer", po::bool_switch(&o.no_distributed_optimizer), "keep the whole optimizer state on every DP rank")
      ("bf16-moments", po::bool_switch(&o.bf16_moments), "Adam moments in bf16 (Megatron's precision-aware optimizer)")
      ("no-sequence-parallel", po::bool_switch(&o.no_sequence_parallel), "TP without sequence parallelism")
      ("precision", po::value<std::string>(&o.precision)->default_value("bf16"), "the GEMMs' precision: bf16 | fp8 (sets the compute peak)")
      ("efficiency", po::value<double>(&o.efficiency)->default_value(0.5), "achieved fraction of the dense peak while computing")
      ("peak-tflops", po::value<double>(&peak_tflops)->default_value(0, "from the GPU model"), "dense peak of one GPU at --precision, TFLOPS")
      ("gpu-memory", po::value<double>(&o.gpu_memory)->default_value(0, "from the GPU model")->value_name("GIB"), "memory of one GPU")
      ("headroom", po::value<double>(&o.headroom)->default_value(0)->value_name("GIB"), "memory to keep free beyond the allowance")
      ("allowance", po::value<double>(&o.allowance)->default_value(3.0)->value_name("GIB"),
       "memory per GPU for the CUDA context, NCCL and library workspaces (10% of the activations is added for fragmentation)")
      ("a2av-skew", po::value<double>(&o.skew)->default_value(0)->value_name("S"),
       "routing skew: Zipf exponent over an EP group's ranks, as run --a2av-skew (0 = balanced)")
      ("ep-overlap", po::bool_switch(&o.ep_overlap), "EP all-to-all overlapped with compute (Megatron's --overlap-moe-expert-parallel-comm)")
      ("cost-model", po::value<std::string>(&o.cost_model)->default_value("", "from the topology")->value_name("FILE"),
       "a calibration file from 'meshbench calibrate', or JSON overrides of the cost model")
      ("no-contention", po::bool_switch(&o.no_contention), "price every group as if it ran alone")
      ("top", po::value<int>(&o.top)->default_value(10)->value_name("K"), "layouts to print; 0 = all")
      ("plan-top", po::value<int>(&o.plan_top)->default_value(5)->value_name("N"), "best layouts whose placement the planner searches")
      ("format", po::value<std::string>(&o.format)->default_value("text"), "output format: text|json")
      ("out", po::value<std::string>(&o.out)->default_value("", "none")->value_name("FILE"),
       "write a plan of the best layouts for 'run --plan': each with its best placement and Megatron's order as the baseline")
      ("out-top", po::value<int>(&o.out_top)->default_value(2)->value_name("K"),
       "layouts --out writes: the best K, and the best of each EP size when the layouts have several")
      ("export", po::value<std::string>(&o.export_dir)->default_value("", "none")->value_name("DIR"),
       "write the best layout's launch files: rankfile, slurm_hostfile, cuda_visible_devices, megatron_args.txt")
      ("force", po::bool_switch(&o.force), "overwrite --out and --export files that exist");
  // clang-format on
  const auto vm = parse_command("explore",
                                "Ranks every valid TP/CP/PP/VPP/EP/ETP layout of a model on the cluster by estimated step time: memory per "
                                "GPU, compute, pipeline bubble and communication at its placement.",
                                options, args, std::cout);
  if (!vm) return kExitOk;
  const OutputFormat format = parse_output_format(o.format, {OutputFormat::text, OutputFormat::json});
  if (o.workload.empty()) throw InputError("explore needs the model: --workload MODEL (a config.json, Megatron script or workload file)");
  if (o.top < 0 || o.plan_top < 0) throw InputError("--top and --plan-top must be 0 or more");
  if (o.out_top < 1) throw InputError("--out-top must be 1 or more (got " + std::to_string(o.out_top) + ")");
  if (!o.out.empty() && !o.force && std::filesystem::exists(o.out))
    throw InputError("'" + o.out + "' exists; pass --force to overwrite it");
  if (!(o.efficiency > 0 && o.efficiency <= 1)) throw InputError("--efficiency must be in (0, 1]; published MoE runs reach 0.3-0.6");
  if (o.skew < 0) throw InputError("--a2av-skew must be 0 or more (a Zipf exponent)");
  if (o.precision != "bf16" && o.precision != "fp8") throw InputError("--precision must be bf16 or fp8");

  ExploreConstraints c;
  c.tp = parse_sizes(o.tp, "tp");
  c.cp = parse_sizes(o.cp, "cp");
  c.pp = parse_sizes(o.pp, "pp");
  c.vpp = parse_sizes(o.vpp, "vpp");
  c.ep = parse_sizes(o.ep, "ep");
  c.etp = parse_sizes(o.etp, "etp");
  c.tp_in_node = !o.tp_across_nodes;
  c.headroom_gib = o.headroom;

  const WorkloadFile file = read_workload_file(o.workload);
  Workload w = file.workload;
  TrainingSettings s;
  s.micro_batch = o.micro_batch > 0 ? o.micro_batch : w.micro_batch;
  s.global_batch = o.global_batch > 0 ? o.global_batch : (w.global_batch > 0 ? w.global_batch : 1024);
  s.recompute = parse_recompute(o.recompute);
  s.distributed_optimizer = !o.no_distributed_optimizer;
  s.precision_aware_optimizer = o.bf16_moments;
  s.sequence_parallel = !o.no_sequence_parallel;
  s.precision = o.precision;
  s.compute_efficiency = o.efficiency;
  s.routing_skew = o.skew;
  s.ep_overlap = o.ep_overlap;
  if (o.allowance < 0 || o.headroom < 0) throw InputError("--allowance and --headroom must be 0 or more GiB");
  s.allowance_gib = o.allowance;
  // The cost model prices the same step explore estimates.
  w.micro_batch = s.micro_batch;
  w.global_batch = s.global_batch;
  w.sequence_parallel = s.sequence_parallel;
  w.distributed_optimizer = s.distributed_optimizer;

  const auto topo = load_topology(o);
  ExploreHardware hw = hardware_of(topo, o);
  if (peak_tflops > 0) {
    hw.bf16_tflops = peak_tflops;
    hw.fp8_tflops = o.precision == "fp8" ? peak_tflops : 0;
  }
  if (hw.bf16_tflops <= 0) throw InputError("the compute peak of '" + hw.gpu_model + "' is not known; pass --peak-tflops T");
  CostParams params = default_cost_params(topo);
  if (!o.cost_model.empty()) params = load_cost_params(o.cost_model, params);
  if (o.no_contention) params.contention = false;
  const CostModel model(topo, params, w);

  if (!o.export_dir.empty() && !o.force && std::filesystem::exists(o.export_dir + "/megatron_args.txt")) {
    throw InputError("'" + o.export_dir + "/megatron_args.txt' exists; pass --force to overwrite it");
  }
  ExploreResult result = explore(w, s, c, hw, topo, model, o.plan_top);

  const ExploreReportContext context{&w, &s, &hw, &topo, o.workload, file.notes};
  if (!o.out.empty()) write_plan_set(explore_plan_set(result, o.out_top, model, topo, hw), o.out, o.force);
  if (!o.export_dir.empty()) {
    const LayoutEstimate& best = result.ranked.front();
    if (!best.candidates) throw InputError("--export needs the planner's placement of the best layout; raise --plan-top above 0");
    const Plan plan = make_plan(best.layout.layout, model, topo, *best.candidates);
    export_mapping(plan, plan.mappings.front(), o.export_dir, o.force);
  }
  if (format == OutputFormat::json) {
    std::cout << explore_json(result, context).dump(2) << "\n";
  } else {
    std::cout << explore_text(result, context, o.top);
    if (!o.out.empty()) std::cout << "plan of the best layouts written to " << o.out << " (meshbench run --plan " << o.out << ")\n";
    if (!o.export_dir.empty()) std::cout << "launch files of the best layout written to " << o.export_dir << "/\n";
  }
  return kExitOk;
}

}  // namespace meshbench::mapping
