// meshbench plan: candidates for a layout on a topology, ranked by the cost model; optionally
// the plan file for `run` and the launch files of one mapping.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "layout_options.hpp"
#include "mapping/candidates.hpp"
#include "mapping/commands.hpp"
#include "mapping/exports.hpp"
#include "mapping/plan.hpp"
#include "mapping/plan_text.hpp"
#include "mapping/workload_file.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {

namespace {

struct PlanOptions {
  topology::TopologyOptions topology;
  Layout layout;
  std::string workload, cost_model, format, out, export_dir, mapping, hosts;
  int top = 10;
  int cpu_slots = 0;
  std::uint64_t seed = 1;
  int random = 1;
  bool no_contention = false, force = false, no_search = false;
  std::optional<double> a2av_skew;  // --a2av-skew (else a --cost-model file's, else the default)
};

// The planned cluster: the offline description, or this node alone.
topology::ClusterTopology load_topology(const PlanOptions& o) {
  if (o.topology.given()) return topology::load_offline_topology(o.topology, false);
  const int slots = o.cpu_slots > 0 ? o.cpu_slots : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  return topology::ClusterTopology::from_nodes({topology::discover_this_node(slots)});
}

// --hosts FILE: one hostname per line, one line per node, replacing the topology's names.
void apply_hosts(const std::string& path, PlanTopology& t) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read hosts file '" + path + "'; check the path");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    const auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    names.push_back(line.substr(b, line.find_last_not_of(" \t\r") + 1 - b));
  }
  if (names.size() != t.hostnames.size()) {
    throw InputError("hosts file '" + path + "' names " + std::to_string(names.size()) + " hosts for " +
                     std::to_string(t.hostnames.size()) + " nodes; give one hostname per node");
  }
  t.hostnames = std::move(names);
}

CostParams plan_cost_params(const PlanOptions& o, const topology::ClusterTopology& topo) {
  CostParams params = default_cost_params(topo);
  if (!o.cost_model.empty()) params = load_cost_params(o.cost_model, params);
  if (params.calibration) check_calibration_topology(*params.calibration, topo, "'" + o.cost_model + "'");
  if (o.no_contention) params.contention = false;
  if (o.a2av_skew) params.a2av_skew = *o.a2av_skew;
  return params;
}

void add_plan_options(po::options_description& options, PlanOptions& o) {
  topology::add_topology_options(options, o.topology);
  // clang-format off
  options.add_options()("cpu-slots", po::value<int>(&o.cpu_slots)->default_value(0, "hardware threads")->value_name("N"),
                        "without topology options and without GPUs: how many CPU slots this node has");
  // clang-format on
  detail::add_layout_options(options, o.layout);
  // clang-format off
  options.add_options()
      ("workload", po::value<std::string>(&o.workload)->default_value("", "none")->value_name("FILE"),
       "the model: meshbench JSON/YAML, a Hugging Face config.json, a Megatron-LM launch script or an overlay (docs/mapping.md); "
       "times become per training step, and a launch script's parallel sizes fill the layout options not given. Without: one step of a Mixtral-8x7B-shaped default")
      ("cost-model", po::value<std::string>(&o.cost_model)->default_value("", "from the topology")->value_name("FILE"),
       "a calibration file from 'meshbench calibrate', or JSON overrides of the cost model's parameters (latency and bandwidth per link class, contention)")
      ("no-contention", po::bool_switch(&o.no_contention), "price every group as if it ran alone (no NIC or PCIe sharing)")
      ("a2av-skew", po::value<double>()->value_name("S"),
       "routing skew: the Zipf exponent over an EP group's ranks, as run --a2av-skew draws it (default 0, balanced); --out's plan carries it to run")
      ("no-search", po::bool_switch(&o.no_search), "skip the local search")
      ("seed", po::value<std::uint64_t>(&o.seed)->default_value(1), "seed of the random baseline placement")
      ("random", po::value<int>(&o.random)->default_value(1)->value_name("N"), "random placements among the candidates (seeds seed, seed+1, ...)")
      ("top", po::value<int>(&o.top)->default_value(10)->value_name("K"), "how many candidates to print; 0 = all")
      ("format", po::value<std::string>(&o.format)->default_value("text"), "output format: text|json")
      ("out", po::value<std::string>(&o.out)->default_value("", "none")->value_name("FILE"),
       "write the plan (every candidate's placement and prediction) for 'run' as JSON")
      ("export", po::value<std::string>(&o.export_dir)->default_value("", "none")->value_name("DIR"),
       "write launch files for one mapping: rankfile, slurm_hostfile, cuda_visible_devices.{txt,sh}, megatron_args.txt")
      ("mapping", po::value<std::string>(&o.mapping)->default_value("", "the best")->value_name("NAME"), "the mapping --export writes")
      ("hosts", po::value<std::string>(&o.hosts)->default_value("", "the topology's")->value_name("FILE"),
       "hostnames for the exports and the plan, one per line, one per node")
      ("force", po::bool_switch(&o.force), "overwrite --out and --export files that exist");
  // clang-format on
}

}  // namespace

int plan_command(const Args& args) {
  PlanOptions o;
  po::options_description options("options");
  add_plan_options(options, o);
  const auto vm = parse_command(
      "plan", "Generates candidate mappings of a parallel layout onto the cluster, ranks them with a contention-aware cost model.", options,
      args, std::cout);
  if (!vm) return kExitOk;
  const OutputFormat format = parse_output_format(o.format, {OutputFormat::text, OutputFormat::json});
  if (o.top < 0) throw InputError("--top must be 0 (all) or more (got " + std::to_string(o.top) + ")");
  if (vm->count("a2av-skew")) {
    o.a2av_skew = (*vm)["a2av-skew"].as<double>();
    check_routing_skew(*o.a2av_skew);
  }
  if (!o.mapping.empty() && o.export_dir.empty()) throw InputError("--mapping chooses what --export writes; add --export DIR");

  // Everything the user gave is read and checked before any work.
  if (!o.out.empty() && !o.force && std::filesystem::exists(o.out))
    throw InputError("'" + o.out + "' exists; pass --force to overwrite it");
  std::optional<Workload> workload;
  if (!o.workload.empty()) {
    const WorkloadFile file = read_workload_file(o.workload);
    workload = file.workload;
    detail::apply_file_layout(*vm, file.layout, o.layout);
  }
  const auto topo = load_topology(o);
  o.layout.world = topo.slot_count();
  validate(o.layout);
  // Without a workload the ranking is one step of a stated default, so that each dimension's
  // ops weigh as often as training runs them (a size sweep puts TP across nodes at scale).
  if (!workload) workload = default_workload(o.layout);
  check_workload(*workload, o.layout);
  const CostModel model(topo, plan_cost_params(o, topo), workload);
  auto ranked = generate_candidates(o.layout, topo, model,
                                    {.random_seed = o.seed, .random_placements = o.random, .search = !o.no_search, .with_groups = false});
  Plan plan = make_plan(o.layout, model, topo, std::move(ranked));
  if (!o.hosts.empty()) apply_hosts(o.hosts, plan.topology);

  const PlannedMapping* chosen = nullptr;
  if (!o.export_dir.empty()) {
    chosen = o.mapping.empty() ? &plan.mappings.front() : plan.find(o.mapping);
    if (chosen == nullptr) {
      throw InputError("no mapping named '" + o.mapping +
                       "' in this plan; choose one of: " + join(plan.mappings, ", ", [](const auto& m) { return m.mapping.name; }));
    }
  }
  if (!o.out.empty()) write_plan(plan, o.out, o.force);
  std::vector<std::string> exported;
  if (chosen != nullptr) exported = export_mapping(plan, *chosen, o.export_dir, o.force);

  if (format == OutputFormat::json) {
    auto j = plan_to_json(plan, false);
    if (o.top > 0 && j["mappings"].size() > static_cast<std::size_t>(o.top))
      j["mappings"].erase(j["mappings"].begin() + o.top, j["mappings"].end());
    j["why"] = why_best(plan);
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << plan_text(plan, o.top);
    if (!o.out.empty()) std::cout << "plan written to " << o.out << "\n";
    if (chosen != nullptr) std::cout << "launch files for " << chosen->mapping.name << " written to " << o.export_dir << "/\n";
  }
  return kExitOk;
}

}  // namespace meshbench::mapping
