// Every common model family read from its Hugging Face config.json as published (the copies in
// tests/data/model-configs, SOURCES.md there): parameter counts against the model cards, the
// layer kinds each family's modelling code builds, and explore pricing each on a catalog cluster.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mapping/explore.hpp"
#include "mapping/workload_file.hpp"
#include "topology/gpu_specs.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {

namespace {

const std::string kConfigs = std::string(MESHBENCH_TEST_DATA) + "/model-configs/";

WorkloadFile read_family(const std::string& model) { return read_workload_file(kConfigs + model + "/config.json"); }

double total_params(const Workload& w) { return w.derived_dense_params() + w.derived_expert_params(); }

}  // namespace

// Totals within 1% of the cards' (norms and biases are left out: under 0.1%). Two cards count
// something meshbench does not: Llama 4 Scout's 109B includes its vision encoder (34 layers of
// 1408: about 0.8B, not trained by a text step), Kimi K2's "1.04T" (its report) is 1.3% above the
// sum of its config's matrices; both are held at 1.5%.
TEST(ModelFamilies, TotalsNearTheModelCards) {
  const struct {
    const char* model;
    double billions, tolerance;
  } cards[] = {{"llama-3.1-405b", 405, 0.01},
               {"mistral-7b-v0.1", 7.3, 0.01},
               {"qwen2.5-7b-instruct", 7.61, 0.01},
               {"qwen3-8b", 8.2, 0.01},
               {"grok-1", 314, 0.01},
               {"qwen3-next-80b-a3b-thinking", 80, 0.01},
               {"glm-4.5-air", 106, 0.01},
               {"llama-4-scout-17b-16e-instruct", 109, 0.015},
               {"kimi-k2-instruct", 1040, 0.015}};
  for (const auto& card : cards) {
    const Workload w = read_family(card.model).workload;
    EXPECT_NEAR(total_params(w) / 1e9, card.billions, card.billions * card.tolerance)
        << card.model << ": " << total_params(w) / 1e9 << " B";
  }
  // Active per token: Llama 4 Scout's "17B" (two figures, so ±1.5%; meshbench counts 17.17B).
  EXPECT_NEAR(read_family("llama-4-scout-17b-16e-instruct").workload.active_params() / 1e9, 17.0, 17.0 * 0.015);
}

TEST(ModelFamilies, DenseFamiliesAreDense) {
  for (const char* model : {"llama-3.1-405b", "mistral-7b-v0.1", "qwen2.5-7b-instruct", "qwen3-8b"}) {
    const WorkloadFile f = read_family(model);
    EXPECT_LE(f.workload.experts, 1) << model;
    EXPECT_EQ(f.workload.moe_layer_count(), 0) << model;
    EXPECT_DOUBLE_EQ(f.workload.derived_expert_params(), 0) << model;
  }
  const Workload llama = read_family("llama-3.1-405b").workload;
  EXPECT_EQ(llama.layers, 126);
  EXPECT_EQ(llama.ffn_hidden, 53248);
  EXPECT_EQ(llama.kv_hidden, 8 * 128);
  // Qwen3-8B's heads are 128 wide whatever h / heads is.
  EXPECT_DOUBLE_EQ(read_family("qwen3-8b").workload.attention_params, 2.0 * 4096 * 32 * 128 + 2.0 * 4096 * 8 * 128);
}

TEST(ModelFamilies, LayerKindsAsEachFamilyBuildsThem) {
  // GLM-4.5-Air: DeepSeek-V3's layer rule with GQA attention: layer 0 dense, 45 MoE layers of 128
  // routed experts and one shared expert of 1408; its MTP layer counted in memory only.
  const Workload glm = read_family("glm-4.5-air").workload;
  EXPECT_EQ(glm.moe_layer_count(), 45);
  EXPECT_FALSE(is_moe_layer(glm, 0));
  EXPECT_TRUE(is_moe_layer(glm, 1));
  EXPECT_EQ(glm.shared_expert_ffn_hidden, 1408);
  EXPECT_EQ(glm.mtp_layers, 1);
  EXPECT_EQ(glm.heads, 96);  // 96 heads of 128 on h = 4096
  // Kimi K2: DeepSeek-V3's shape (MLA, one dense layer) with 384 experts.
  const WorkloadFile kimi = read_family("kimi-k2-instruct");
  EXPECT_EQ(kimi.format, "Hugging Face config.json (kimi_k2)");
  EXPECT_EQ(kimi.workload.experts, 384);
  EXPECT_EQ(kimi.workload.moe_layer_count(), 60);
  EXPECT_EQ(kimi.attention.rfind("MLA", 0), 0U);
  // Grok-1's file names no model_type: its architecture class gives the family.
  const WorkloadFile grok = read_family("grok-1");
  EXPECT_EQ(grok.format, "Hugging Face config.json (grok-1)");
  EXPECT_EQ(grok.workload.experts, 8);
  EXPECT_EQ(grok.workload.top_k, 2);
  EXPECT_EQ(grok.workload.moe_layer_count(), 64);
  // Qwen3-Next: every 4th layer full (gated) attention, the other 36 Gated DeltaNet; 512 experts
  // of 512, top-10, one shared expert of 512.
  const Workload next = read_family("qwen3-next-80b-a3b-thinking").workload;
  EXPECT_EQ(next.full_attention_layers, 12);
  EXPECT_DOUBLE_EQ(next.full_attention_share(), 0.25);
  EXPECT_EQ(next.experts, 512);
  EXPECT_EQ(next.top_k, 10);
  EXPECT_EQ(next.shared_expert_ffn_hidden, 512);
  EXPECT_EQ(next.kv_hidden, 2 * 256);
  // Its quadratic attention core is priced on the full-attention layers alone.
  Workload all_full = next;
  all_full.full_attention_layers = -1;
  EXPECT_DOUBLE_EQ(layer_forward_flops(all_full, true) - layer_forward_flops(next, true), 0.75 * 2.0 * next.seq_len * next.hidden);
  // Llama 4 Scout: its text_config; every layer MoE (interleave step 1) with 16 experts of 8192,
  // top-1, and a shared expert as wide; the dense MLP width (16384) for non-MoE layers.
  const WorkloadFile scout = read_family("llama-4-scout-17b-16e-instruct");
  EXPECT_EQ(scout.workload.layers, 48);
  EXPECT_EQ(scout.workload.moe_layer_count(), 48);
  EXPECT_EQ(scout.workload.expert_ffn(), 8192);
  EXPECT_EQ(scout.workload.shared_expert_ffn_hidden, 8192);
  EXPECT_EQ(scout.workload.ffn_hidden, 16384);
  EXPECT_NE(std::find(scout.ignored.begin(), scout.ignored.end(), "text_config.attention_chunk_size"), scout.ignored.end());
}

// Maverick's interleaving (step 2) as Llama 4's modelling code places it: layers 1, 3, 5, ... are
// MoE, and a pipeline stage gets its share of each kind, not all the dense layers first.
TEST(ModelFamilies, InterleavedMoeLayersKeepTheirPlaces) {
  std::ifstream in(kConfigs + "llama-4-scout-17b-16e-instruct/config.json");
  nlohmann::json j = nlohmann::json::parse(in);
  j["text_config"]["interleave_moe_layer_step"] = 2;
  const std::string path = ::testing::TempDir() + "llama4_step2.json";
  std::ofstream(path) << j.dump();
  const Workload w = load_workload(path);
  EXPECT_EQ(w.moe_layer_count(), 24);
  EXPECT_FALSE(is_moe_layer(w, 0));
  EXPECT_TRUE(is_moe_layer(w, 1));
  EXPECT_TRUE(is_moe_layer(w, 47));
  const auto split = split_layers(w.layers, 2, 1);
  ASSERT_TRUE(split);
  for (const auto& stage : split->layers_by_stage()) {
    EXPECT_EQ(std::count_if(stage.begin(), stage.end(), [&](int i) { return is_moe_layer(w, i); }), 12);
  }
}

// explore prices each family on p5.48xlarge nodes at its defaults; dense models get no EP (and
// ETP = TP), MoE models get layouts with EP.
TEST(ModelFamilies, ExplorePricesEachFamilyOnACatalogCluster) {
  const struct {
    const char* model;
    int nodes;
    bool dense;
  } runs[] = {{"llama-3.1-405b", 32, true},
              {"mistral-7b-v0.1", 1, true},
              {"qwen2.5-7b-instruct", 1, true},
              {"qwen3-8b", 1, true},
              {"grok-1", 16, false},
              {"qwen3-next-80b-a3b-thinking", 4, false},
              {"glm-4.5-air", 4, false},
              {"llama-4-scout-17b-16e-instruct", 4, false},
              {"kimi-k2-instruct", 64, false}};
  const auto spec = topology::find_gpu_spec("H100");
  ASSERT_TRUE(spec);
  const ExploreHardware hw{"H100", spec->memory_gib, spec->bf16_tflops, spec->fp8_tflops, spec->hbm_tbps, 8};
  for (const auto& run : runs) {
    topology::TopologyOptions o;
    o.node_type = "p5.48xlarge";
    o.nodes = run.nodes;
    const auto cluster = topology::load_offline_topology(o, true);
    const Workload model = read_family(run.model).workload;
    const TrainingSettings settings;
    const Workload w = workload_for_step(model, settings);
    const CostModel cost(cluster, default_cost_params(cluster), w);
    const ExploreResult r = explore(w, settings, {}, hw, cluster, cost, 0);
    ASSERT_FALSE(r.ranked.empty()) << run.model;
    EXPECT_GT(r.ranked.front().step_us, 0) << run.model;
    const bool any_ep = std::any_of(r.ranked.begin(), r.ranked.end(), [](const LayoutEstimate& e) { return e.layout.layout.ep > 1; });
    EXPECT_EQ(any_ep, !run.dense) << run.model;
    if (run.dense) {
      for (const auto& e : r.ranked) EXPECT_EQ(e.layout.layout.expert_tp(), e.layout.layout.tp) << run.model;
    }
  }
}

}  // namespace meshbench::mapping
