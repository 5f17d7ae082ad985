// meshbench workload FILE: what meshbench understood from a workload file — the model's shape,
// its parameters and the per-step traffic of each dimension for a layout — so that a user can
// check it against the model card before planning with it.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "layout_options.hpp"
#include "mapping/commands.hpp"
#include "mapping/workload_file.hpp"

namespace meshbench::mapping {

namespace {

using nlohmann::json;

struct WorkloadOptions {
  std::string file, overlay, format;
  Layout layout;
  int dp = 0, gpus = 0, nodes = 0, gpus_per_node = 8;
  int seq_len = 0, micro_batch = 0, micro_batches = 0, global_batch = 0;
  std::string dtype, grad_dtype, sequence_parallel, distributed_optimizer;
};

std::string billions(double params) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f B", params / 1e9);
  return buf;
}

// Binary units with one decimal ("31.9 GiB"); the exact byte count sits beside it in the table.
std::string readable_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024 && u < 5) {
    bytes /= 1024;
    ++u;
  }
  return (u == 0 ? fixed(bytes, 0) : fixed(bytes, 1)) + " " + units[u];
}

bool parse_switch(const std::string& option, const std::string& value) {
  if (value == "true" || value == "on" || value == "1") return true;
  if (value == "false" || value == "off" || value == "0") return false;
  throw InputError("--" + option + " is '" + value + "'; use true or false");
}

// The training settings typed on the command line, as the training keys of an overlay.
json typed_training_keys(const WorkloadOptions& o) {
  json j = json::object();
  if (o.seq_len > 0) j["seq_len"] = o.seq_len;
  if (o.micro_batch > 0) j["micro_batch"] = o.micro_batch;
  if (o.micro_batches > 0) j["micro_batches"] = o.micro_batches;
  if (o.global_batch > 0) j["global_batch"] = o.global_batch;
  if (!o.dtype.empty()) j["dtype"] = o.dtype;
  if (!o.grad_dtype.empty()) j["grad_dtype"] = o.grad_dtype;
  if (!o.sequence_parallel.empty()) j["sequence_parallel"] = parse_switch("sequence-parallel", o.sequence_parallel);
  if (!o.distributed_optimizer.empty()) j["distributed_optimizer"] = parse_switch("distributed-optimizer", o.distributed_optimizer);
  return j;
}

// World size: --gpus, --nodes × --gpus-per-node, --dp, the launch script's torchrun sizes, or
// the smallest world both grids fit in (DP = 1 where the expert grid allows).
int world_size(const WorkloadOptions& o, const FileLayout& file, const Layout& l) {
  if (o.gpus > 0) return o.gpus;
  if (o.nodes > 0) return o.nodes * o.gpus_per_node;
  if (o.dp > 0) return l.tp * l.cp * l.pp * o.dp;
  if (file.world) return *file.world;
  return std::lcm(l.tp * l.cp, l.expert_tp() * l.ep) * l.pp;
}

json traffic_json(const std::vector<OpTraffic>& traffic) {
  json out = json::array();
  for (const auto& t : traffic) {
    out.push_back({{"dim", std::string(to_string(t.dim))},
                   {"op", std::string(to_string(t.op))},
                   {"bytes", t.bytes},
                   {"calls_per_step", t.calls_per_step},
                   {"bytes_per_step", static_cast<double>(t.bytes) * t.calls_per_step}});
  }
  return out;
}

std::string text_report(const WorkloadFile& f, const Layout& l, const std::string& path, const std::vector<OpTraffic>& traffic) {
  const Workload& w = f.workload;
  std::ostringstream out;
  out << "workload: " << path << " (" << f.format << ")" << (w.name.empty() ? std::string() : ", named '" + w.name + "'") << "\n";
  const int moe = w.moe_layer_count();
  out << "shape: " << w.layers << " layers (" << moe << " MoE, " << (w.layers - moe) << " dense), hidden " << w.hidden << ", vocab "
      << w.vocab << ", " << (w.tied_embeddings ? "tied" : "untied") << " embeddings, " << (w.gated_mlp ? "gated" : "plain") << " MLP\n";
  if (!f.attention.empty()) out << "  attention: " << f.attention << "\n";
  out << "  K/V width (CP traffic): " << w.kv_hidden << "\n";
  if (moe < w.layers) out << "  dense MLP: " << w.ffn_hidden << " wide\n";
  if (moe > 0) {
    out << "  experts: " << w.experts << " routed of " << w.expert_ffn() << ", top-" << w.top_k;
    if (w.shared_expert_ffn_hidden > 0) out << ", shared experts " << w.shared_expert_ffn_hidden << " wide in all";
    out << ", capacity factor " << fixed(w.capacity_factor, 2) << "\n";
  }
  const int mb = w.micro_batches_per_step(l);
  out << "training: seq_len " << w.seq_len << ", micro-batch " << w.micro_batch << ", " << mb << " micro-batches per step"
      << (w.global_batch > 0 ? " (global batch " + std::to_string(w.global_batch) + ")" : std::string()) << ", activations " << w.dtype
      << ", gradients " << w.grad_dtype << ", sequence parallel " << (w.sequence_parallel ? "on" : "off") << ", distributed optimizer "
      << (w.distributed_optimizer ? "on" : "off") << "\n";
  out << "parameters: dense " << billions(w.derived_dense_params()) << ", expert " << billions(w.derived_expert_params()) << ", total "
      << billions(w.derived_dense_params() + w.derived_expert_params()) << ", active per token " << billions(w.active_params()) << "\n";
  out << "layout: world " << l.world << ", TP " << l.tp << " CP " << l.cp << " PP " << l.pp << " EP " << l.ep << " ETP " << l.expert_tp()
      << " DP " << l.dp() << " EDP " << l.edp() << ", order " << l.order << "\n";
  out << "per-step traffic of one rank (sizes in nccl-tests' convention):\n";
  out << "  dim  op              size       bytes           calls/step  per step\n";
  for (const auto& t : traffic) {
    char line[200];
    const std::string dim(to_string(t.dim)), op(to_string(t.op));
    const bool whole = t.calls_per_step == static_cast<double>(static_cast<long long>(t.calls_per_step));
    std::snprintf(line, sizeof line, "  %-4s %-15s %-10s %-15s %10s  %s\n", dim.c_str(), op.c_str(),
                  readable_bytes(static_cast<double>(t.bytes)).c_str(), std::to_string(t.bytes).c_str(),
                  fixed(t.calls_per_step, whole ? 0 : 2).c_str(), readable_bytes(static_cast<double>(t.bytes) * t.calls_per_step).c_str());
    out << line;
  }
  if (traffic.empty()) out << "  (none: every dimension has size 1)\n";
  if (!f.ignored.empty()) out << "ignored (they do not change the traffic): " << join(f.ignored, ", ") << "\n";
  for (const auto& n : f.notes) out << "note: " << n << "\n";
  return out.str();
}

void add_workload_options(po::options_description& options, WorkloadOptions& o) {
  // clang-format off
  options.add_options()
      ("file", po::value<std::string>(&o.file)->value_name("FILE"),
       "the workload: meshbench JSON or YAML, a Hugging Face config.json, a Megatron-LM launch script or argument list, or an overlay (positional)")
      ("overlay", po::value<std::string>(&o.overlay)->default_value("", "none")->value_name("FILE"),
       "JSON or YAML of training settings (seq_len, micro_batch, micro_batches, global_batch, dtype, grad_dtype, sequence_parallel, distributed_optimizer)");
  // clang-format on
  detail::add_layout_options(options, o.layout);
  // clang-format off
  options.add_options()
      ("dp", po::value<int>(&o.dp)->default_value(0, "from --gpus/--nodes, the file, or 1")->value_name("D"), "data-parallel size")
      ("gpus", po::value<int>(&o.gpus)->default_value(0, "none")->value_name("N"), "world size")
      ("nodes", po::value<int>(&o.nodes)->default_value(0, "none")->value_name("N"), "nodes; world = nodes × --gpus-per-node")
      ("gpus-per-node", po::value<int>(&o.gpus_per_node)->default_value(8)->value_name("G"), "GPUs per node with --nodes")
      ("seq-len", po::value<int>(&o.seq_len)->default_value(0, "the file's")->value_name("S"), "sequence length")
      ("micro-batch", po::value<int>(&o.micro_batch)->default_value(0, "the file's")->value_name("B"), "sequences per micro-batch")
      ("micro-batches", po::value<int>(&o.micro_batches)->default_value(0, "the file's")->value_name("M"), "micro-batches per step per DP rank")
      ("global-batch", po::value<int>(&o.global_batch)->default_value(0, "the file's")->value_name("G"), "sequences per step over all DP ranks (sets the micro-batches)")
      ("dtype", po::value<std::string>(&o.dtype)->default_value("", "the file's")->value_name("T"), "activations: bf16, fp16, fp32, fp8")
      ("grad-dtype", po::value<std::string>(&o.grad_dtype)->default_value("", "the file's")->value_name("T"), "gradients: bf16, fp16, fp32")
      ("sequence-parallel", po::value<std::string>(&o.sequence_parallel)->default_value("", "the file's")->value_name("true|false"), "TP with sequence parallelism")
      ("distributed-optimizer", po::value<std::string>(&o.distributed_optimizer)->default_value("", "the file's")->value_name("true|false"), "DP as reduce-scatter + all-gather")
      ("format", po::value<std::string>(&o.format)->default_value("text"), "output format: text|json");
  // clang-format on
}

// What `--format json` prints.
json workload_json(const WorkloadFile& f, const Layout& l, const std::string& path, const std::vector<OpTraffic>& traffic) {
  const Workload& w = f.workload;
  return {{"file", path},
          {"format", f.format},
          {"attention", f.attention},
          {"workload", to_json(w)},
          {"parameters",
           {{"dense", w.derived_dense_params()},
            {"expert", w.derived_expert_params()},
            {"total", w.derived_dense_params() + w.derived_expert_params()},
            {"active_per_token", w.active_params()}}},
          {"layout",
           {{"world", l.world},
            {"tp", l.tp},
            {"cp", l.cp},
            {"pp", l.pp},
            {"ep", l.ep},
            {"etp", l.expert_tp()},
            {"dp", l.dp()},
            {"edp", l.edp()},
            {"order", l.order}}},
          {"micro_batches_per_step", w.micro_batches_per_step(l)},
          {"traffic", traffic_json(traffic)},
          {"ignored", f.ignored},
          {"notes", f.notes}};
}

}  // namespace

int workload_command(const Args& args) {
  WorkloadOptions o;
  po::options_description options("options");
  add_workload_options(options, o);
  po::positional_options_description positional;
  positional.add("file", 1);
  const auto vm = parse_command("workload",
                                "Prints what meshbench understood from a workload file: the model's shape, its parameters, and the "
                                "per-step traffic of each dimension for a layout.",
                                options, args, std::cout, &positional);
  if (!vm) return kExitOk;
  if (o.file.empty()) throw InputError("name the workload file: meshbench workload FILE (see --help)");
  const OutputFormat format = parse_output_format(o.format, {OutputFormat::text, OutputFormat::json});
  for (const auto& [name, value] : {std::pair{"dp", o.dp},
                                    {"gpus", o.gpus},
                                    {"nodes", o.nodes},
                                    {"seq-len", o.seq_len},
                                    {"micro-batch", o.micro_batch},
                                    {"micro-batches", o.micro_batches},
                                    {"global-batch", o.global_batch}}) {
    if (value < 0) throw InputError(std::string("--") + name + " must be at least 1 (got " + std::to_string(value) + ")");
  }
  if (o.gpus_per_node < 1) throw InputError("--gpus-per-node must be at least 1");
  if ((o.gpus > 0) + (o.nodes > 0) + (o.dp > 0) > 1) throw InputError("give one of --dp, --gpus and --nodes");

  WorkloadFile f = read_workload_file(o.file);
  if (!o.overlay.empty()) apply_training_keys(f.workload, read_json_or_yaml_file(o.overlay, "overlay"), "overlay '" + o.overlay + "'");
  apply_training_keys(f.workload, typed_training_keys(o), "given on the command line");
  Layout& l = o.layout;
  detail::apply_file_layout(*vm, f.layout, l);
  l.world = world_size(o, f.layout, l);
  validate(l);
  check_workload(f.workload, l);
  const auto traffic = step_traffic(f.workload, l);

  if (format == OutputFormat::json) {
    std::cout << workload_json(f, l, o.file, traffic).dump(2) << "\n";
  } else {
    std::cout << text_report(f, l, o.file, traffic);
  }
  return kExitOk;
}

}  // namespace meshbench::mapping
