// explore's command line: options in, checked values, constraints and settings out.
#include "explore_options.hpp"

#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "common/error.hpp"

namespace meshbench::mapping {

namespace {

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

void add_explore_options(po::options_description& options, ExploreOptions& o) {
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
      ("peak-tflops", po::value<double>(&o.peak_tflops)->default_value(0, "from the GPU model"), "dense peak of one GPU at --precision, TFLOPS")
      ("gpu-memory", po::value<double>(&o.gpu_memory)->default_value(0, "from the GPU model")->value_name("GIB"), "memory of one GPU")
      ("headroom", po::value<double>(&o.headroom)->default_value(0)->value_name("GIB"), "memory to keep free beyond the allowance")
      ("allowance", po::value<double>(&o.allowance)->default_value(3.0)->value_name("GIB"),
       "memory per GPU for the CUDA context, NCCL and library workspaces (10% of the activations is added for fragmentation)")
      ("a2av-skew", po::value<double>(&o.skew)->default_value(kDefaultRoutingSkew)->value_name("S"),
       "routing skew: Zipf exponent over an EP group's ranks, as run --a2av-skew (0 = balanced); --out's plan carries it")
      ("ep-overlap", po::bool_switch(&o.ep_overlap), "EP all-to-all overlapped with compute (Megatron's --overlap-moe-expert-parallel-comm)")
      ("comm-overlap", po::value<double>(&o.comm_overlap)->default_value(0)->value_name("F"),
       "share of the otherwise exposed communication hidden behind compute, 0-1 (--measured fits it)")
      ("measured", po::value<std::string>(&o.measured)->default_value("", "none")->value_name("LOG"),
       "a Megatron-LM training log of one layout on this cluster: fit --efficiency (and --comm-overlap) to its step time, then rank")
      ("measured-layout", po::value<std::string>(&o.measured_layout)->default_value("", "the log's arguments")->value_name("SPEC"),
       "the layout the --measured log ran, when it prints no arguments block: tp=N,pp=N,cp=N,ep=N,etp=N,vpp=N")
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
}

// What can be checked before any file is read.
void check_values(const ExploreOptions& o) {
  if (o.workload.empty()) throw InputError("explore needs the model: --workload MODEL (a config.json, Megatron script or workload file)");
  if (o.top < 0 || o.plan_top < 0) throw InputError("--top and --plan-top must be 0 or more");
  if (o.out_top < 1) throw InputError("--out-top must be 1 or more (got " + std::to_string(o.out_top) + ")");
  if (!o.out.empty() && !o.force && std::filesystem::exists(o.out))
    throw InputError("'" + o.out + "' exists; pass --force to overwrite it");
  if (!(o.efficiency > 0 && o.efficiency <= 1)) throw InputError("--efficiency must be in (0, 1]; published MoE runs reach 0.3-0.6");
  check_routing_skew(o.skew);
  if (!(o.comm_overlap >= 0 && o.comm_overlap <= 1))
    throw InputError("--comm-overlap must be in [0, 1]: the share of exposed communication hidden");
  if (!o.measured_layout.empty() && o.measured.empty()) throw InputError("--measured-layout describes a --measured LOG; give the log too");
  if (o.precision != "bf16" && o.precision != "fp8") throw InputError("--precision must be bf16 or fp8");
  if (o.allowance < 0 || o.headroom < 0) throw InputError("--allowance and --headroom must be 0 or more GiB");
  parse_recompute(o.recompute);
}

}  // namespace

std::optional<ExploreOptions> parse_explore_options(const Args& args) {
  ExploreOptions o;
  po::options_description options("options");
  add_explore_options(options, o);
  const auto vm = parse_command("explore",
                                "Ranks every valid TP/CP/PP/VPP/EP/ETP layout of a model on the cluster by estimated step time: memory per "
                                "GPU, compute, pipeline bubble and communication at its placement.",
                                options, args, std::cout);
  if (!vm) return std::nullopt;
  o.output = parse_output_format(o.format, {OutputFormat::text, OutputFormat::json});
  o.skew_given = !(*vm)["a2av-skew"].defaulted();
  check_values(o);
  return o;
}

ExploreConstraints constraints_of(const ExploreOptions& o) {
  ExploreConstraints c;
  c.tp = parse_sizes(o.tp, "tp");
  c.cp = parse_sizes(o.cp, "cp");
  c.pp = parse_sizes(o.pp, "pp");
  c.vpp = parse_sizes(o.vpp, "vpp");
  c.ep = parse_sizes(o.ep, "ep");
  c.etp = parse_sizes(o.etp, "etp");
  c.tp_in_node = !o.tp_across_nodes;
  c.headroom_gib = o.headroom;
  return c;
}

TrainingSettings settings_of(const ExploreOptions& o, const Workload& w) {
  TrainingSettings s;
  s.micro_batch = o.micro_batch > 0 ? o.micro_batch : w.micro_batch;
  s.global_batch = o.global_batch > 0 ? o.global_batch : (w.global_batch > 0 ? w.global_batch : 1024);
  s.recompute = parse_recompute(o.recompute);
  s.distributed_optimizer = !o.no_distributed_optimizer;
  s.precision_aware_optimizer = o.bf16_moments;
  s.sequence_parallel = !o.no_sequence_parallel;
  s.precision = o.precision;
  s.compute_efficiency = o.efficiency;
  s.ep_overlap = o.ep_overlap;
  s.comm_overlap = o.comm_overlap;
  s.allowance_gib = o.allowance;
  return s;
}

ExploreLayout parse_measured_layout(const std::string& text, int world) {
  auto refuse = [&](const std::string& why) {
    throw InputError("--measured-layout '" + text + "' " + why +
                     "; write it as tp=N,pp=N,cp=N,ep=N,etp=N,vpp=N (cp, vpp 1 and etp = tp by default)");
  };
  std::map<std::string, int> sizes;
  std::istringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    const auto eq = part.find('=');
    if (eq == std::string::npos) refuse("has '" + part + "' without '='");
    const std::string name = part.substr(0, eq);
    if (name != "tp" && name != "pp" && name != "cp" && name != "ep" && name != "etp" && name != "vpp") refuse("names '" + name + "'");
    const auto v = parse_sizes(part.substr(eq + 1), "measured-layout");
    if (v.size() != 1) refuse("gives " + name + " more than one size");
    sizes[name] = v.front();
  }
  auto size = [&](const char* name, int fallback) { return sizes.count(name) != 0 ? sizes[name] : fallback; };
  ExploreLayout e;
  e.layout.world = world;
  e.layout.tp = size("tp", 1);
  e.layout.pp = size("pp", 1);
  e.layout.cp = size("cp", 1);
  e.layout.ep = size("ep", 1);
  e.layout.etp = size("etp", e.layout.tp);
  e.vpp = size("vpp", 1);
  return e;
}

}  // namespace meshbench::mapping
