// explore: the validity rules, a ranking whose answer is known by construction, constraints,
// and where ten published MoE recipes (tests/data/recipes) land in its list.
#include "mapping/explore.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "mapping/workload_file.hpp"
#include "tests/unit/mapping/published_recipe.hpp"
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
  const CostModel model(topo, default_cost_params(topo), workload_for_step(w, s));
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

// Each published recipe's own layout, judged with the recipe's precision, recompute and optimizer
// settings, and again with the EP all-to-all overlapped (--ep-overlap, which the recipes do not
// state): it passes every rule, and a Megatron-Core recipe (NeMo, Megatron-Bridge) fits.
// DeepSeek-V3's report trained with its own framework (FP8 activation caching, recomputed SwiGLU
// and up-projections, DualPipe), which Megatron's accounting does not model: it must pass the
// rules. Explore is pinned to the recipe's sizes, so it prices that one layout; where it lands
// among every layout is tests/perf/explore_recipes.cpp's table (docs/explore.md).
TEST(Explore, PublishedRecipesAreFeasibleAndRanked) {
  const auto recipes = published_recipes();
  ASSERT_GE(recipes.size(), 5U);
  for (PublishedRecipe r : recipes) {
    for (const bool overlap : {false, true}) {
      r.settings.ep_overlap = overlap;
      ExploreResult result;
      try {
        result = explore_recipe(r, r.layout);
      } catch (const InputError& e) {
        // Nothing fits: the pinned layout must have failed on memory alone, not on a rule.
        const std::string why = e.what();
        EXPECT_NE(why.find("(does not fit in GPU memory: 1)"), std::string::npos) << r.name << ": " << why;
        EXPECT_FALSE(r.megatron) << r.name << ": does not fit";
        continue;
      }
      const auto is_recipe = [&](const LayoutEstimate& e) { return is_recipe_layout(r, e); };
      const auto found = std::find_if(result.ranked.begin(), result.ranked.end(), is_recipe);
      const auto too_big = std::find_if(result.too_big.begin(), result.too_big.end(), is_recipe);
      EXPECT_TRUE(found != result.ranked.end() || too_big != result.too_big.end())
          << r.name << (overlap ? " (--ep-overlap)" : "") << ": the published layout broke a rule";
      if (r.megatron) {
        EXPECT_TRUE(found != result.ranked.end()) << r.name << (overlap ? " (--ep-overlap)" : "") << ": does not fit";
      }
      EXPECT_LE(result.ranked.size() + result.too_big.size(), 1U) << r.name << ": explore priced more than the pinned layout";
    }
  }
}

// A pinned layout that does not fit is refused with what it needs, so that the user sees how far
// off it is and where: the message's figures are the estimate's own.
TEST(Explore, NothingFitsSaysWhatTheSmallestNeeds) {
  const auto topo = cluster("p5.48xlarge", 1);
  const Workload w = dense_7b();
  TrainingSettings s;
  s.global_batch = 64;
  s.micro_batch = 8;
  s.recompute = Recompute::none;
  ExploreConstraints c;
  c.tp = {1};
  c.pp = {1};
  c.cp = {1};
  const ExploreHardware hw = hardware("H100");
  std::string message;
  try {
    (void)run(w, s, c, topo, hw);
  } catch (const InputError& e) {
    message = e.what();
  }
  ASSERT_NE(message.find("does not fit in GPU memory: 1"), std::string::npos) << message;
  ExploreLayout layout;
  layout.layout = {.world = 8, .tp = 1, .cp = 1, .pp = 1, .ep = 1, .etp = 1};
  const MemoryEstimate m = estimate_memory(workload_for_step(w, s), layout, *split_layers(w.layers, 1, 1), s);
  EXPECT_GT(m.maximum.total() / kBytesPerGiB, hw.memory_gib);
  char needs[96];
  std::snprintf(needs, sizeof needs, "the smallest needs %.1f GiB on stage 0, %.1f GiB of it activations", m.maximum.total() / kBytesPerGiB,
                m.maximum.activations / kBytesPerGiB);
  EXPECT_NE(message.find(needs), std::string::npos) << message << "\nwant: " << needs;
}

}  // namespace
}  // namespace meshbench::mapping
