#include "tests/unit/mapping/published_recipe.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "mapping/workload_file.hpp"
#include "topology/gpu_specs.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {
namespace {

std::string data(const std::string& path) { return std::string(MESHBENCH_TEST_DATA) + "/" + path; }

PublishedRecipe read_recipe(const nlohmann::json& r) {
  PublishedRecipe p;
  p.name = r["name"];
  const std::string gpu = r["gpu"];
  topology::TopologyOptions o;
  o.node_type = gpu.rfind("B200", 0) == 0 ? "p6-b200.48xlarge" : "p5.48xlarge";
  o.nodes = r["gpus"].get<int>() / 8;
  p.cluster = topology::load_offline_topology(o, true);
  const auto spec = topology::find_gpu_spec(gpu.substr(0, 4));
  if (!spec) throw std::runtime_error(p.name + ": no GPU spec for " + gpu);
  p.hardware = {gpu.substr(0, 4), spec->memory_gib, spec->bf16_tflops, spec->fp8_tflops, spec->hbm_tbps, 8};

  p.workload = read_workload_file(data("model-configs/" + r["model"].get<std::string>() + "/config.json")).workload;
  p.workload.seq_len = r["seq_len"];
  const auto& extra = r["extra"];
  const bool bf16_grads = (extra.contains("main_grads_dtype") && extra["main_grads_dtype"] == "bf16") ||
                          (extra.contains("grad_reduce_in_fp32") && !extra["grad_reduce_in_fp32"].get<bool>());
  p.workload.grad_dtype = bf16_grads ? "bf16" : "fp32";
  if (!extra.contains("mtp_num_layers")) p.workload.mtp_layers = 0;

  TrainingSettings& s = p.settings;
  s.micro_batch = r["micro_batch"].is_null() ? 1 : r["micro_batch"].get<int>();
  s.global_batch = r["global_batch"];
  s.recompute = parse_recompute(r["recompute"]);
  s.distributed_optimizer = r["distributed_optimizer"];
  s.sequence_parallel = r["sequence_parallel"];
  s.precision_aware_optimizer = extra["optimizer_moment_dtype"] == "bf16";
  s.precision = r["precision"];

  const auto& l = r["layout"];
  p.layout.tp = {l["tp"].get<int>()};
  p.layout.cp = {l["cp"].get<int>()};
  p.layout.pp = {l["pp"].get<int>()};
  p.layout.vpp = {l["vpp"].get<int>()};
  p.layout.ep = {l["ep"].get<int>()};
  p.layout.etp = {l["etp"].get<int>()};
  p.megatron = r["source"].contains("repo") && r["source"]["repo"].get<std::string>().rfind("NVIDIA", 0) == 0;
  return p;
}

}  // namespace

std::vector<PublishedRecipe> published_recipes() {
  std::ifstream in(data("recipes/recipes.json"));
  const auto document = nlohmann::json::parse(in);
  std::vector<PublishedRecipe> out;
  for (const auto& r : document.at("recipes")) out.push_back(read_recipe(r));
  return out;
}

ExploreResult explore_recipe(const PublishedRecipe& recipe, const ExploreConstraints& constraints) {
  const CostModel model(recipe.cluster, default_cost_params(recipe.cluster), workload_for_step(recipe.workload, recipe.settings));
  return explore(recipe.workload, recipe.settings, constraints, recipe.hardware, recipe.cluster, model, 0);
}

bool is_recipe_layout(const PublishedRecipe& recipe, const LayoutEstimate& e) {
  const Layout& x = e.layout.layout;
  const ExploreConstraints& l = recipe.layout;
  return x.tp == l.tp[0] && x.cp == l.cp[0] && x.pp == l.pp[0] && e.layout.vpp == l.vpp[0] && x.ep == l.ep[0] && x.expert_tp() == l.etp[0];
}

}  // namespace meshbench::mapping
