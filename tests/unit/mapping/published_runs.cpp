#include "tests/unit/mapping/published_runs.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "mapping/workload_file.hpp"
#include "topology/gpu_specs.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {
namespace {

std::string published_data(const std::string& path) { return std::string(MESHBENCH_TEST_DATA) + "/" + path; }

int or_one(const nlohmann::json& v) { return v.is_null() ? 1 : v.get<int>(); }

// "deepseek-ai/DeepSeek-V3" -> the config folder of tests/data/model-configs.
std::string config_folder(const std::string& hf) {
  if (hf == "deepseek-ai/DeepSeek-V3") return "deepseek-v3";
  if (hf == "openai/gpt-oss-120b") return "gpt-oss-120b";
  if (hf == "Qwen/Qwen3-30B-A3B") return "qwen3-30b-a3b";
  throw std::runtime_error("no config folder for " + hf);
}

}  // namespace

std::vector<PublishedRun> published_runs() {
  std::ifstream in(published_data("published/megatron-bridge-training-throughput.json"));
  const auto document = nlohmann::json::parse(in);
  std::vector<PublishedRun> out;
  for (const auto& r : document.at("throughput")) {
    const std::string gpu = r["hardware"]["gpu"];
    std::string node_type;
    if (gpu.rfind("H100", 0) == 0) node_type = "p5.48xlarge";
    if (gpu.rfind("B200", 0) == 0) node_type = "p6-b200.48xlarge";
    if (node_type.empty()) continue;
    PublishedRun p;
    p.id = r["id"];
    p.model = config_folder(r["hf_config"]);
    p.gpu = gpu.substr(0, 4);
    topology::TopologyOptions o;
    o.node_type = node_type;
    o.nodes = r["num_gpus"].get<int>() / 8;
    p.cluster = topology::load_offline_topology(o, true);
    const auto spec = topology::find_gpu_spec(p.gpu);
    if (!spec) throw std::runtime_error(p.id + ": no GPU spec for " + gpu);
    p.hardware = {p.gpu, spec->memory_gib, spec->bf16_tflops, spec->fp8_tflops, spec->hbm_tbps, 8};
    p.workload = read_workload_file(published_data("model-configs/" + p.model + "/config.json")).workload;

    MeasuredRun& m = p.run;
    const auto& l = r["layout"];
    m.layout.layout.world = r["num_gpus"];
    m.layout.layout.tp = or_one(l["tp"]);
    m.layout.layout.pp = or_one(l["pp"]);
    m.layout.layout.cp = or_one(l["cp"]);
    m.layout.layout.ep = or_one(l["ep"]);
    m.layout.layout.etp = or_one(l["etp"]);
    m.layout.vpp = or_one(l["vp"]);
    m.settings.micro_batch = r["micro_batch_size"];
    m.settings.global_batch = r["global_batch_size"];
    m.settings.precision = r["precision"] == "FP8" ? "fp8" : "bf16";
    if (r["recompute"].is_string()) m.settings.recompute = parse_recompute(r["recompute"]);  // else explore's default
    m.seq_len = r["seq_len"];
    m.step_ms = r["derived"]["step_time_s"].get<double>() * 1000.0;
    m.source = p.id;
    out.push_back(std::move(p));
  }
  return out;
}

double predicted_step_ms(const PublishedRun& row, double efficiency, double comm_overlap) {
  MeasuredRun run = row.run;
  run.settings.compute_efficiency = efficiency;
  run.settings.comm_overlap = comm_overlap;
  return measured_layout_step_ms(row.workload, run, row.hardware, row.cluster, default_cost_params(row.cluster));
}

std::string as_megatron_log(const PublishedRun& row) {
  const MeasuredRun& m = row.run;
  const Layout& l = m.layout.layout;
  auto arg = [](const std::string& name, const std::string& value) {
    std::string dots(std::max<std::size_t>(3, 48 - name.size()), '.');
    return "  " + name + " " + dots + " " + value + "\n";
  };
  std::string out = "------------------------ arguments ------------------------\n";
  out += arg("tensor_model_parallel_size", std::to_string(l.tp)) + arg("pipeline_model_parallel_size", std::to_string(l.pp)) +
         arg("virtual_pipeline_model_parallel_size", m.layout.vpp > 1 ? std::to_string(m.layout.vpp) : "None") +
         arg("context_parallel_size", std::to_string(l.cp)) + arg("expert_model_parallel_size", std::to_string(l.ep)) +
         arg("expert_tensor_parallel_size", std::to_string(l.expert_tp())) + arg("world_size", std::to_string(l.world)) +
         arg("micro_batch_size", std::to_string(m.settings.micro_batch)) +
         arg("global_batch_size", std::to_string(m.settings.global_batch)) + arg("seq_length", std::to_string(m.seq_len)) +
         arg("num_layers", std::to_string(row.workload.layers)) + arg("bf16", "True") +
         arg("fp8", m.settings.precision == "fp8" ? "hybrid" : "None") +
         arg("recompute_granularity", m.settings.recompute == Recompute::none ? "None" : to_string(m.settings.recompute)) +
         arg("use_distributed_optimizer", "True");
  out += "-------------------- end of arguments ---------------------\n";
  auto line = [&](int i, double ms) {
    char text[400];
    std::snprintf(text, sizeof text,
                  " [2026-01-01 00:00:%02d] iteration %8d/      50 | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                  "global batch size: %5d | lm loss: 1.000000E+01 | loss scale: 1.0 | number of skipped iterations:   0 | number of nan "
                  "iterations:   0 |\n",
                  i, i, i * m.settings.global_batch, ms, m.settings.global_batch);
    return std::string(text);
  };
  return out + line(1, 3 * m.step_ms) + line(2, m.step_ms) + line(3, m.step_ms);
}

}  // namespace meshbench::mapping
