// explore: the validity rules, a ranking whose answer is known by construction, constraints,
// and where ten published MoE recipes (tests/data/recipes) land in its list.
#include "mapping/explore.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "mapping/workload_file.hpp"
#include "topology/gpu_specs.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {
namespace {

topology::ClusterTopology cluster(const std::string& node_type, int nodes) {
  topology::TopologyOptions o;
  o.node_type = node_type;
  o.nodes = nodes;
  return topology::load_offline_topology(o, true);
}

ExploreHardware hardware(const std::string& gpu) {
  const auto spec = topology::find_gpu_spec(gpu);
  EXPECT_TRUE(spec) << gpu;
  return {gpu, spec->memory_gib, spec->bf16_tflops, spec->fp8_tflops, spec->hbm_tbps, 8};
}

// A 7B-shaped dense model: 32 heads, so TP 16 is allowed by the heads.
Workload dense_7b() {
  Workload w;
  w.name = "dense-7b";
  w.layers = 32;
  w.hidden = 4096;
  w.ffn_hidden = 11008;
  w.kv_hidden = 4096;
  w.heads = 32;
  w.kv_heads = 32;
  w.experts = 0;
  w.top_k = 1;
  return w;
}

ExploreResult run(const Workload& w, const TrainingSettings& s, const ExploreConstraints& c, const topology::ClusterTopology& topo,
                  const ExploreHardware& hw, int plan_top = 0) {
  Workload priced = w;
  priced.micro_batch = s.micro_batch;
  priced.global_batch = s.global_batch;
  priced.sequence_parallel = s.sequence_parallel;
  priced.distributed_optimizer = s.distributed_optimizer;
  const CostModel model(topo, default_cost_params(topo), priced);
  return explore(w, s, c, hw, topo, model, plan_top);
}

TEST(Explore, TensorParallelInsideTheNodeBeatsAcrossNodesByConstruction) {
  // Same compute per GPU either way; TP 16 puts every layer's collectives on the network.
  const auto topo = cluster("p5.48xlarge", 2);
  TrainingSettings s;
  s.global_batch = 64;
  ExploreConstraints c;
  c.tp = {8, 16};
  c.cp = {1};
  c.pp = {1};
  c.tp_in_node = false;
  const ExploreResult r = run(dense_7b(), s, c, topo, hardware("H100"), 2);
  ASSERT_EQ(r.ranked.size(), 2U);
  EXPECT_EQ(r.ranked[0].layout.layout.tp, 8);
  EXPECT_EQ(r.ranked[1].layout.layout.tp, 16);
  EXPECT_NEAR(r.ranked[0].compute_us, r.ranked[1].compute_us, 1e-6 * r.ranked[0].compute_us);
  EXPECT_GT(r.ranked[1].comm.exposed_us, 2 * r.ranked[0].comm.exposed_us);
  EXPECT_TRUE(r.ranked[0].comm.planned);
  // Inside a node (the default) TP 16 is not a candidate at all, and says why.
  c.tp_in_node = true;
  const ExploreResult inside = run(dense_7b(), s, c, topo, hardware("H100"));
  ASSERT_EQ(inside.ranked.size(), 1U);
  EXPECT_EQ(inside.rejected_by_rule.count("TP or ETP beyond a node (--tp-across-nodes lifts it)"), 1U);
}

TEST(Explore, PipelineBubbleShrinksWithVirtualStages) {
  const auto topo = cluster("p5.48xlarge", 2);
  TrainingSettings s;
  s.global_batch = 32;  // 16 micro-batches at DP 2
  ExploreConstraints c;
  c.tp = {1};
  c.cp = {1};
  c.pp = {8};
  c.vpp = {1, 2, 4};
  const ExploreResult r = run(dense_7b(), s, c, topo, hardware("H100"));
  ASSERT_EQ(r.ranked.size(), 3U);
  auto bubble = [&](int vpp) {
    for (const auto& e : r.ranked) {
      if (e.layout.vpp == vpp) return e.bubble_us;
    }
    return -1.0;
  };
  // (p - 1) / v micro-batch times: 7, 3.5, 1.75.
  EXPECT_NEAR(bubble(1) / bubble(2), 2.0, 1e-9);
  EXPECT_NEAR(bubble(2) / bubble(4), 2.0, 1e-9);
}

TEST(Explore, RulesNameWhatEachCandidateBroke) {
  const auto topo = cluster("p5.48xlarge", 2);
  Workload w = dense_7b();
  w.experts = 8;
  w.top_k = 2;
  TrainingSettings s;
  s.global_batch = 64;
  ExploreConstraints c;
  c.ep = {16};
  try {
    run(w, s, c, topo, hardware("H100"));
    FAIL() << "EP 16 with 8 experts must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("experts not divisible by EP"), std::string::npos) << e.what();
  }
  c.ep = {8};
  const ExploreResult r = run(w, s, c, topo, hardware("H100"));
  for (const auto& e : r.ranked) EXPECT_EQ(e.layout.layout.ep, 8);
  // Too little memory: the layouts that do not fit are kept, with what they need.
  ExploreHardware small = hardware("H100");
  small.memory_gib = 60;
  const ExploreResult tight = run(w, s, {}, topo, small);
  ASSERT_FALSE(tight.too_big.empty());
  for (const auto& e : tight.ranked) EXPECT_LE(e.memory.maximum.total(), 60.0 * 1024 * 1024 * 1024);
  for (const auto& e : tight.too_big) EXPECT_GT(e.memory.maximum.total(), 60.0 * 1024 * 1024 * 1024);
}

TEST(Explore, SkewMakesWiderExpertParallelismCostMore) {
  // Qwen3-30B-A3B on 8 p5 nodes, EP 8 against EP 16: the busiest EP 16 rank gets more above the
  // mean than the busiest EP 8 rank, so skew raises EP 16's all-to-all and memory more.
  const auto file = read_workload_file(std::string(MESHBENCH_TEST_DATA) + "/model-configs/qwen3-30b-a3b/config.json");
  const auto topo = cluster("p5.48xlarge", 8);
  TrainingSettings s;
  ExploreConstraints c;
  c.ep = {8, 16};
  c.tp = {1};
  c.cp = {1};
  c.pp = {1};
  const auto at = [&](const ExploreResult& r, int ep) {
    for (const auto& e : r.ranked) {
      if (e.layout.layout.ep == ep) return e;
    }
    ADD_FAILURE() << "EP" << ep << " missing";
    return LayoutEstimate{};
  };
  const ExploreResult even = run(file.workload, s, c, topo, hardware("H100"));
  s.routing_skew = 0.5;
  const ExploreResult skewed = run(file.workload, s, c, topo, hardware("H100"));
  const double ep8 = at(skewed, 8).step_us / at(even, 8).step_us, ep16 = at(skewed, 16).step_us / at(even, 16).step_us;
  EXPECT_GT(ep16, ep8);
  EXPECT_GT(at(skewed, 16).imbalance, at(skewed, 8).imbalance);
  EXPECT_GT(at(skewed, 16).memory.maximum.activations, at(even, 16).memory.maximum.activations);
}

// Where each published recipe's own layout lands among every layout explore finds for its
// model and cluster, judged with the recipe's precision, recompute and optimizer settings.
TEST(Explore, PublishedRecipesAreFeasibleAndRanked) {
  std::ifstream in(std::string(MESHBENCH_TEST_DATA) + "/recipes/recipes.json");
  const auto recipes = nlohmann::json::parse(in)["recipes"];
  ASSERT_GE(recipes.size(), 5U);
  for (const auto& r : recipes) {
    const std::string name = r["name"];
    const std::string gpu = r["gpu"];
    const std::string node_type = gpu.rfind("B200", 0) == 0 ? "p6-b200.48xlarge" : "p5.48xlarge";
    const int gpus = r["gpus"];
    const auto topo = cluster(node_type, gpus / 8);
    const auto file =
        read_workload_file(std::string(MESHBENCH_TEST_DATA) + "/model-configs/" + r["model"].get<std::string>() + "/config.json");
    Workload w = file.workload;
    w.seq_len = r["seq_len"];
    const auto& extra = r["extra"];
    const bool bf16_grads = (extra.contains("main_grads_dtype") && extra["main_grads_dtype"] == "bf16") ||
                            (extra.contains("grad_reduce_in_fp32") && !extra["grad_reduce_in_fp32"].get<bool>());
    w.grad_dtype = bf16_grads ? "bf16" : "fp32";
    if (!extra.contains("mtp_num_layers")) w.mtp_layers = 0;
    TrainingSettings s;
    s.micro_batch = r["micro_batch"].is_null() ? 1 : r["micro_batch"].get<int>();
    s.global_batch = r["global_batch"];
    s.recompute = parse_recompute(r["recompute"]);
    s.distributed_optimizer = r["distributed_optimizer"];
    s.sequence_parallel = r["sequence_parallel"];
    s.precision_aware_optimizer = extra["optimizer_moment_dtype"] == "bf16";
    s.precision = r["precision"];
    const auto& l = r["layout"];
    const ExploreResult result = run(w, s, {}, topo, hardware(gpu.substr(0, 4)));
    auto same = [&](const LayoutEstimate& e) {
      const Layout& x = e.layout.layout;
      return x.tp == l["tp"] && x.cp == l["cp"] && x.pp == l["pp"] && e.layout.vpp == l["vpp"] && x.ep == l["ep"] &&
             x.expert_tp() == l["etp"];
    };
    const auto found = std::find_if(result.ranked.begin(), result.ranked.end(), same);
    const auto too_big = std::find_if(result.too_big.begin(), result.too_big.end(), same);
    // Megatron-Core recipes (NeMo, Megatron-Bridge) must fit. DeepSeek-V3's report trained with its
    // own framework (FP8 activation caching, recomputed SwiGLU and up-projections, DualPipe), which
    // Megatron's accounting does not model: it must pass the rules, and its memory is reported.
    const bool megatron = r["source"].contains("repo") && r["source"]["repo"].get<std::string>().rfind("NVIDIA", 0) == 0;
    EXPECT_TRUE(found != result.ranked.end() || too_big != result.too_big.end()) << name << ": the published layout broke a rule";
    if (megatron) {
      EXPECT_TRUE(found != result.ranked.end()) << name << ": does not fit";
    }
    // The same judged with the EP all-to-all overlapped (--ep-overlap), which the recipes do not state.
    s.ep_overlap = true;
    const ExploreResult overlapped = run(w, s, {}, topo, hardware(gpu.substr(0, 4)));
    const auto found_overlapped = std::find_if(overlapped.ranked.begin(), overlapped.ranked.end(), same);
    if (found != result.ranked.end() && found_overlapped != overlapped.ranked.end()) {
      std::printf("recipe %-44s rank %4td of %5zu fitting, step %.3fx the best; with --ep-overlap rank %4td, %.3fx\n", name.c_str(),
                  found - result.ranked.begin() + 1, result.ranked.size(), found->step_us / result.ranked.front().step_us,
                  found_overlapped - overlapped.ranked.begin() + 1, found_overlapped->step_us / overlapped.ranked.front().step_us);
    } else if (too_big != result.too_big.end()) {
      std::printf("recipe %-44s needs %.1f GiB on stage %d\n", name.c_str(), too_big->memory.maximum.total() / 1073741824.0,
                  too_big->memory.maximum.stage);
    }
  }
}

}  // namespace
}  // namespace meshbench::mapping
