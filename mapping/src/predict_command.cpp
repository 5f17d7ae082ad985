// meshbench predict: nccl-tests' table of what a collective should take on a topology, from the
// cost model, with the algorithm and protocol it assumed.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "common/error.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"
#include "layout_options.hpp"
#include "mapping/calibration.hpp"
#include "mapping/commands.hpp"
#include "mapping/nccl_tuning.hpp"
#include "mapping/predict.hpp"
#include "mapping/rank_groups.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {

namespace {

std::string without_underscores(std::string s) {
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  return s;
}

std::string plural(int n, const std::string& one, const std::string& many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

std::string slot_noun(const topology::ClusterTopology& t, int n) {
  const bool gpu = t.slot_count() > 0 && t.node(0).slot_count() > 0 && t.node(0).slots.front().kind == topology::SlotKind::gpu;
  return gpu ? plural(n, "GPU", "GPUs") : plural(n, "CPU slot", "CPU slots");
}

// nccl-tests' time column: two decimals below 100 us, one below 10 ms, none above.
std::string time_cell(double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, us >= 10000.0 ? "%7.0f" : us >= 100.0 ? "%7.1f" : "%7.2f", us);
  return buf;
}

}  // namespace

std::string estimate_basis(std::string_view algorithm) {
  if (algorithm == "alpha-beta" || algorithm == "calibrated") return std::string(algorithm);
  return "NCCL " + std::string(kNcclTuningVersion) + " tuning model";
}

std::vector<std::uint64_t> predict_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor) {
  if (min_bytes == 0) throw InputError("-b/--minbytes must be at least 1 byte; raise it (e.g. -b 8)");
  if (min_bytes > max_bytes)
    throw InputError("-b/--minbytes (" + std::to_string(min_bytes) + ") is above -e/--maxbytes (" + std::to_string(max_bytes) +
                     "); give -b <= -e");
  if (min_bytes == max_bytes) return {min_bytes};
  if (factor < 2)
    throw InputError("-f/--stepfactor must be at least 2 to step from -b to -e (got " + std::to_string(factor) + "); e.g. -f 2");
  return size_sweep(min_bytes, max_bytes, factor);
}

Op parse_predict_op(std::string_view name) {
  std::string n = lower(trim(name));
  if (n.size() > 5 && n.ends_with("_perf")) n.resize(n.size() - 5);
  if (const auto op = parse_op(n)) return *op;
  for (const auto& row : ops::kOps) {
    if (without_underscores(std::string(row.name)) == without_underscores(n)) return row.op;
  }
  throw InputError("unknown op '" + std::string(name) + "'; give --op one of " + ops::op_names(", ") +
                   " (nccl-tests' names; allreduce and all_reduce_perf work too)");
}

PredictGroup node_group(const topology::ClusterTopology& t, int gpus_per_node, Op op) {
  const int nodes = t.node_count();
  const int per_node = t.node(0).slot_count();
  if (gpus_per_node < 0) throw InputError("--gpus-per-node must be at least 1 (got " + std::to_string(gpus_per_node) + ")");
  if (gpus_per_node > 0) {
    if (!t.homogeneous()) throw InputError("--gpus-per-node needs nodes that are alike, and these differ; leave it out to use every slot");
    if (gpus_per_node > per_node)
      throw InputError("--gpus-per-node " + std::to_string(gpus_per_node) + " is more than a node has (" + slot_noun(t, per_node) +
                       "); give at most " + std::to_string(per_node));
    if (per_node % gpus_per_node != 0)
      throw InputError("--gpus-per-node " + std::to_string(gpus_per_node) + " does not divide a node's " + slot_noun(t, per_node) +
                       "; give a divisor of " + std::to_string(per_node));
  }
  const int k = gpus_per_node == 0 ? per_node : gpus_per_node;
  const int size = gpus_per_node == 0 ? t.slot_count() : nodes * gpus_per_node;
  // The dimension whose groups run the op in training, so that the model prices it there:
  // all-to-all on ep, point to point on pp, the ring collectives on tp.
  PredictGroup g;
  g.layout.world = t.slot_count();
  switch (ops::info(op).family) {
    case ops::Family::all_to_all:
      g.dim = Dim::ep;
      g.layout.ep = size;
      break;
    case ops::Family::point_to_point:
      g.dim = Dim::pp;
      g.layout.pp = size;
      break;
    default:
      g.dim = Dim::tp;
      g.layout.tp = size;
      break;
  }
  validate(g.layout);
  // Group q's j-th member on slot j % k of node j / k, the q-th block of k slots there.
  const FlatGroups groups = flat_rank_groups(g.layout)[g.dim];
  g.slot_of_rank.assign(static_cast<std::size_t>(t.slot_count()), -1);
  for (int q = 0; q < groups.count(); ++q) {
    const auto members = groups.group(q);
    for (int j = 0; j < size; ++j) {
      g.slot_of_rank[static_cast<std::size_t>(members[static_cast<std::size_t>(j)])] = t.first_slot_of(j / k) + q * k + j % k;
    }
  }
  g.isolated = true;
  g.ranks = size;
  g.nodes = nodes;
  g.groups = 1;
  g.description = gpus_per_node == 0 ? slot_noun(t, size) + ": every slot of " + plural(nodes, "node", "nodes")
                                     : slot_noun(t, size) + ": the first " + std::to_string(gpus_per_node) + " of each of " +
                                           plural(nodes, "node", "nodes");
  g.description += ", one communicator";
  return g;
}

PredictGroup layout_dim_group(const topology::ClusterTopology& t, Layout layout, Dim dim) {
  layout.world = t.slot_count();
  validate(layout);
  const int size = layout.size(dim);
  if (size < 2)
    throw InputError("--dim " + std::string(to_string(dim)) + " has groups of one rank in this layout, which communicate nothing; " +
                     "give the layout options that size it (e.g. --" + std::string(to_string(dim)) + " 8) or another --dim");
  PredictGroup g;
  g.layout = layout;
  g.dim = dim;
  g.slot_of_rank.resize(static_cast<std::size_t>(t.slot_count()));
  for (int r = 0; r < t.slot_count(); ++r) g.slot_of_rank[static_cast<std::size_t>(r)] = r;
  g.isolated = false;
  g.ranks = size;
  g.groups = layout.world / size;
  g.description = std::string(to_string(dim)) + " of TP" + std::to_string(layout.tp) + " CP" + std::to_string(layout.cp) + " PP" +
                  std::to_string(layout.pp) + " EP" + std::to_string(layout.ep) + " ETP" + std::to_string(layout.expert_tp()) + ", order " +
                  layout.order + ", rank r on slot r: groups of " + std::to_string(size) + ", all " + std::to_string(g.groups) + " at once";
  return g;
}

std::string hardware_line(const topology::ClusterTopology& t) {
  std::ostringstream out;
  const int nodes = t.node_count();
  const auto& n0 = t.node(0);
  const std::string type = !n0.node_type.empty() ? n0.node_type : n0.hostname;
  if (t.homogeneous()) {
    out << plural(nodes, "node", "nodes") << " x " << slot_noun(t, n0.slot_count()) << " (" << type << "), "
        << slot_noun(t, t.slot_count());
    if (!n0.nics.empty()) {
      double fastest = 0;
      for (const auto& nic : n0.nics) fastest = std::max(fastest, nic.speed_gbps);
      out << ", " << plural(static_cast<int>(n0.nics.size()), "NIC", "NICs") << " of up to " << fixed(fastest, 1) << " GB/s per node";
    }
  } else {
    out << plural(nodes, "node", "nodes") << " of " << t.layout_count() << " kinds, " << slot_noun(t, t.slot_count());
  }
  return out.str();
}

Prediction predict(const CostModel& model, const PredictGroup& group, Op op, const std::vector<std::uint64_t>& sizes,
                   const std::string& calibration_source) {
  Prediction p;
  p.op = std::string(to_string(op));
  p.ranks = group.ranks;
  p.groups = group.groups;
  p.isolated = group.isolated;
  const Score score = model.score(group.layout, flat_rank_groups(group.layout), group.slot_of_rank);
  const DimShape& shape = score.of(group.dim);
  p.nodes = shape.max_nodes_per_group;
  p.group = plural(p.ranks, "rank", "ranks") + " on " + plural(p.nodes, "node", "nodes") + " (" + group.description + ")";
  const double factor = busbw_factor(op, group.ranks);
  std::vector<std::string> bases;
  for (const auto bytes : sizes) {
    const OpEstimate e = model.op_estimate(shape, op, bytes, group.isolated);
    PredictRow r;
    r.bytes = bytes;
    r.count = bytes / sizeof(float);
    r.time_us = e.time_us;
    r.algbw_gbps = e.time_us > 0 ? static_cast<double>(bytes) / e.time_us / 1e3 : 0;
    r.busbw_gbps = r.algbw_gbps * factor;
    r.algorithm = e.algorithm;
    r.protocol = e.protocol;
    std::string basis = estimate_basis(e.algorithm);
    if (e.algorithm == "calibrated" && !calibration_source.empty()) basis += " (" + calibration_source + ")";
    if (std::find(bases.begin(), bases.end(), basis) == bases.end()) bases.push_back(basis);
    p.rows.push_back(std::move(r));
  }
  p.model = join(bases, " and ");
  return p;
}

std::string predict_text(const Prediction& p) {
  std::ostringstream out;
  out << "# meshbench predict: " << p.op << ", what nccl-tests should measure (a prediction, not a measurement)\n";
  out << "# group: " << p.group << "\n";
  out << "# hardware: " << p.hardware << "\n";
  out << "# model: " << p.model << "\n";
  out << "#\n";
  char line[256];
  std::snprintf(line, sizeof line, "#%11s  %12s  %8s  %7s  %6s  %6s  %10s  %8s\n", "size", "count", "type", "time", "algbw", "busbw",
                "algorithm", "protocol");
  out << line;
  std::snprintf(line, sizeof line, "#%11s  %12s  %8s  %7s  %6s  %6s", "(B)", "(elements)", "", "(us)", "(GB/s)", "(GB/s)");
  out << line << "\n";
  double busbw_sum = 0;
  for (const auto& r : p.rows) {
    std::snprintf(line, sizeof line, "%12llu  %12llu  %8s  %7s  %6.2f  %6.2f  %10s  %8s\n", static_cast<unsigned long long>(r.bytes),
                  static_cast<unsigned long long>(r.count), p.type.c_str(), time_cell(r.time_us).c_str(), r.algbw_gbps, r.busbw_gbps,
                  r.algorithm.c_str(), r.protocol.empty() ? "-" : r.protocol.c_str());
    out << line;
    busbw_sum += r.busbw_gbps;
  }
  if (!p.rows.empty()) {
    std::snprintf(line, sizeof line, "# Avg bus bandwidth    : %g\n", busbw_sum / static_cast<double>(p.rows.size()));
    out << "#\n" << line;
  }
  return out.str();
}

nlohmann::ordered_json predict_json(const Prediction& p) {
  nlohmann::ordered_json j;
  j["schema"] = "meshbench.predict";
  j["schema_version"] = 1;
  j["header"] = {{"op", p.op},       {"type", p.type},         {"ranks", p.ranks},
                 {"nodes", p.nodes}, {"groups", p.groups},     {"isolated", p.isolated},
                 {"group", p.group}, {"hardware", p.hardware}, {"model", p.model}};
  j["rows"] = nlohmann::ordered_json::array();
  for (const auto& r : p.rows) {
    j["rows"].push_back({{"bytes", r.bytes},
                         {"count", r.count},
                         {"time_us", r.time_us},
                         {"algbw_gbps", r.algbw_gbps},
                         {"busbw_gbps", r.busbw_gbps},
                         {"algorithm", r.algorithm},
                         {"protocol", r.protocol}});
  }
  return j;
}

int predict_command(const Args& args) {
  topology::TopologyOptions topo_options;
  Layout layout;
  std::string op_name, dim_name, cost_model, format_name, min_text, max_text, factor_text;
  int gpus_per_node = 0, cpu_slots = 0;
  po::options_description options("options");
  // clang-format off
  options.add_options()
      ("op", po::value(&op_name)->default_value("all_reduce")->value_name("NAME"),
       ("the collective, as nccl-tests names it: " + ops::op_names(", ") + " (allreduce, all_reduce_perf work too)").c_str())
      ("minbytes,b", po::value(&min_text)->default_value("8")->value_name("SIZE"), "smallest size (nccl-tests' -b; K, M, G are binary)")
      ("maxbytes,e", po::value(&max_text)->default_value("128M")->value_name("SIZE"), "largest size (nccl-tests' -e)")
      ("stepfactor,f", po::value(&factor_text)->default_value("2")->value_name("F"), "multiplication factor between sizes (nccl-tests' -f)")
      ("gpus-per-node", po::value(&gpus_per_node)->default_value(0, "all")->value_name("K"),
       "the group: the first K slots of every node (default: every slot of every node, as nccl-tests runs across an allocation)")
      ("dim", po::value(&dim_name)->default_value("", "none")->value_name("DIM"),
       "price one dimension (tp, cp, dp, pp, ep, etp, edp) of the layout the layout options give, at its default placement, all its groups at once");
  // clang-format on
  topology::add_topology_options(options, topo_options);
  // clang-format off
  options.add_options()("cpu-slots", po::value<int>(&cpu_slots)->default_value(0, "hardware threads")->value_name("N"),
                        "without topology options and without GPUs: how many CPU slots this node has");
  // clang-format on
  detail::add_layout_options(options, layout);
  // clang-format off
  options.add_options()
      ("cost-model", po::value(&cost_model)->default_value("", "from the topology")->value_name("FILE"),
       "a calibration file from 'meshbench calibrate', or JSON overrides of the cost model's parameters")
      ("format", po::value(&format_name)->default_value("text"), "output format: text|json");
  // clang-format on
  const auto vm =
      parse_command("predict",
                    "Prints nccl-tests' table of what a collective should take on the hardware: size, count, time, algbw, busbw,\n"
                    "and the algorithm and protocol the cost model assumed. A prediction, not a measurement.",
                    options, args, std::cout);
  if (!vm) return kExitOk;
  const OutputFormat format = parse_output_format(format_name, {OutputFormat::text, OutputFormat::json});
  const Op op = parse_predict_op(op_name);
  const auto sizes = predict_sizes(parse_bytes(min_text), parse_bytes(max_text), parse_bytes(factor_text));
  bool layout_given = false;
  for (const char* o : {"tp", "cp", "pp", "ep", "etp", "order"}) layout_given = layout_given || !(*vm)[o].defaulted();
  std::optional<Dim> dim;
  if (!dim_name.empty()) {
    dim = parse_dim(dim_name);
    if (!dim) throw InputError("unknown --dim '" + dim_name + "'; give one of tp, cp, dp, pp, ep, etp, edp");
    if (gpus_per_node != 0)
      throw InputError("--dim prices a layout's groups and --gpus-per-node one group of K per node; give one of them");
  } else if (layout_given) {
    throw InputError("the layout options size a layout whose dimension --dim prices; add --dim (e.g. --dim tp)");
  }

  const topology::ClusterTopology topo = [&] {
    if (topo_options.given()) return topology::load_offline_topology(topo_options, false);
    const int slots = cpu_slots > 0 ? cpu_slots : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
    return topology::ClusterTopology::from_nodes({topology::discover_this_node(slots)});
  }();
  CostParams params = default_cost_params(topo);
  if (!cost_model.empty()) params = load_cost_params(cost_model, params);
  if (params.calibration) check_calibration_topology(*params.calibration, topo, "'" + cost_model + "'");

  const PredictGroup group = dim ? layout_dim_group(topo, layout, *dim) : node_group(topo, gpus_per_node, op);
  if (group.ranks < 2)
    throw InputError("the group has one rank, which communicates nothing; give more nodes (--nodes) or more GPUs per node");
  const CostModel model(topo, params);
  Prediction p = predict(model, group, op, sizes, cost_model);
  if (std::any_of(p.rows.begin(), p.rows.end(), [](const PredictRow& r) { return !(r.time_us > 0); }))
    throw InputError(
        "the cost model does not price " + p.op + " on " + std::string(to_string(group.dim)) + " groups" +
        (dim ? "; price it on the dimension that runs it (--dim ep for all_to_all, --dim pp for send_recv)" : "; predict another op"));
  p.hardware = hardware_line(topo);
  if (format == OutputFormat::json) {
    std::cout << predict_json(p).dump(2) << "\n";
  } else {
    std::cout << predict_text(p);
  }
  return kExitOk;
}

}  // namespace meshbench::mapping
