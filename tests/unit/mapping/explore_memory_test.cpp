// explore's memory model: every term of a tiny model computed by hand, the layer split, the
// routing imbalance, and weights + optimizer held against Megatron-LM's own estimator
// (tests/data/megatron-memory, its outputs on 11 configurations).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "mapping/training.hpp"

namespace meshbench::mapping {
namespace {

// Two layers, h 8, an ungated MLP of 16, attention 2h² + 2h·kv = 256 parameters, vocab 10,
// untied: small enough that every byte below is counted by hand.
Workload tiny(int experts) {
  Workload w;
  w.layers = 2;
  w.hidden = 8;
  w.ffn_hidden = 16;
  w.kv_hidden = 8;
  w.seq_len = 4;
  w.vocab = 10;
  w.gated_mlp = false;
  w.tied_embeddings = false;
  w.experts = experts;
  w.top_k = 2;
  return w;
}

TrainingSettings bare() {
  TrainingSettings s;
  s.micro_batch = 1;
  s.global_batch = 2;
  s.recompute = Recompute::none;
  s.allowance_gib = 0;
  s.fragmentation = 0;
  return s;
}

ExploreLayout layout(int world, int ep) {
  Layout l;
  l.world = world;
  l.ep = ep;
  return {l, 1};
}

TEST(ExploreMemory, DenseTinyModelEveryTermByHand) {
  const Workload w = tiny(0);
  const auto el = layout(2, 1);
  const auto split = split_layers(w.layers, 1, 1);
  ASSERT_TRUE(split);
  const MemoryEstimate m = estimate_memory(w, el, *split, bare());
  ASSERT_EQ(m.stages.size(), 1U);
  const StageMemory& s = m.stages[0];
  // Per layer: attention 256 + norms 16 + MLP 2·8·16 = 528; two layers 1056; embedding 80,
  // final norm 8, untied output layer 80.
  EXPECT_DOUBLE_EQ(s.parameters, 1224);
  EXPECT_DOUBLE_EQ(s.weights, 2 * 1224);           // bf16
  EXPECT_DOUBLE_EQ(s.gradients, 4 * 1224);         // fp32 main gradients
  EXPECT_DOUBLE_EQ(s.optimizer, 12.0 * 1224 / 2);  // master + two moments, sharded over DP 2
  // Per token and layer: attention 3h + 8h, norms 4h, MLP input 3h, MLP 2·16 + 2·16 = 208;
  // 4 tokens × 2 layers = 1664; token ids and embedding output 4·(8 + 8) = 64; logits 4·4·(8 + 10) = 288.
  EXPECT_DOUBLE_EQ(s.activations, 1664 + 64 + 288);
  EXPECT_DOUBLE_EQ(s.total(), 2448 + 4896 + 7344 + 2016);
}

TEST(ExploreMemory, Fp8KeepsGemmInputsInOneByte) {
  const Workload w = tiny(0);
  TrainingSettings s = bare();
  s.precision = "fp8";
  const auto split = split_layers(2, 1, 1);
  const MemoryEstimate m = estimate_memory(w, layout(2, 1), *split, s);
  // Per token and layer the QKV, output-projection, FC1 and FC2 inputs take h, h, h and f bytes
  // instead of twice that: 208 - 8 - 8 - 8 - 16 = 168.
  EXPECT_DOUBLE_EQ(m.stages[0].activations, 4 * 2 * 168 + 64 + 288);
  EXPECT_DOUBLE_EQ(m.stages[0].weights, 2 * 1224);  // weights stay 16-bit
}

TEST(ExploreMemory, MoeTinyModelEveryTermByHand) {
  const Workload w = tiny(4);
  const auto el = layout(2, 2);  // EP 2: EDP 1, DP 2
  const auto split = split_layers(w.layers, 1, 1);
  const MemoryEstimate m = estimate_memory(w, el, *split, bare());
  const StageMemory& s = m.stages[0];
  // Per layer: attention 256 split; norms 16 + router 8·4 replicated; experts 4·256 over EP 2.
  // Dense 2·(256 + 48) + 168 (embedding, norm, output) = 776; experts 2·512 = 1024.
  EXPECT_DOUBLE_EQ(s.parameters, 776 + 1024);
  EXPECT_DOUBLE_EQ(s.optimizer, 12.0 * 776 / 2 + 12.0 * 1024 / 1);  // experts: EDP 1, nothing to shard over
  // Per token and layer: 88 + 32 + 24, routed 2·(2h + 2f + 2f + 2h) = 192, router 10·4 = 40.
  EXPECT_DOUBLE_EQ(s.activations, 4 * 2 * (144 + 192 + 40) + 64 + 288);
  // Zipf 1 over 2 ranks: the busiest gets 2 / (1 + 1/2) of the mean: routed copies 2·4/3.
  EXPECT_NEAR(routing_imbalance(2, 1.0), 4.0 / 3.0, 1e-12);
  TrainingSettings skewed = bare();
  skewed.routing_skew = 1.0;
  const MemoryEstimate ms = estimate_memory(w, el, *split, skewed);
  EXPECT_NEAR(ms.maximum.activations, 4 * 2 * (144 + 192 * 4.0 / 3.0 + 40) + 64 + 288, 1e-9);
  EXPECT_DOUBLE_EQ(ms.typical.activations, s.activations);  // the typical stage has no skew
}

TEST(ExploreMemory, PipelineKeepsFewerMicroBatchesOnLaterStages) {
  Workload w = tiny(0);
  w.layers = 4;
  TrainingSettings s = bare();
  s.global_batch = 8;  // 8 micro-batches on DP 1
  Layout l;
  l.world = 2;
  l.pp = 2;
  const auto split = split_layers(4, 2, 1);
  const MemoryEstimate m = estimate_memory(w, {l, 1}, *split, s);
  // 1F1B: stage 0 holds 2 micro-batches of its 2 layers, stage 1 one (plus the logits).
  const double layer = 4 * 208;
  EXPECT_DOUBLE_EQ(m.stages[0].activations, 2 * (2 * layer + 64));
  EXPECT_DOUBLE_EQ(m.stages[1].activations, 1 * (2 * layer) + 288);
  // Interleaved with 2 chunks per rank: stage 0 keeps (2-0-1)·2 + (2-1)·2 + 1 = 5 chunks of half its layers.
  const auto split2 = split_layers(4, 2, 2);
  const MemoryEstimate mi = estimate_memory(w, {l, 2}, *split2, s);
  EXPECT_DOUBLE_EQ(mi.stages[0].activations, 5.0 / 2.0 * (2 * layer + 64));
}

TEST(ExploreMemory, FullRecomputeKeepsLayerInputsAndOneLayer) {
  const Workload w = tiny(0);
  TrainingSettings s = bare();
  s.recompute = Recompute::full;
  const auto split = split_layers(2, 1, 1);
  const MemoryEstimate m = estimate_memory(w, layout(2, 1), *split, s);
  // Inputs 2 bytes × h per token per layer, the embedding's 64, one layer recomputed (832), logits.
  EXPECT_DOUBLE_EQ(m.stages[0].activations, 2 * (2.0 * 4 * 8) + 64 + 832 + 288);
}

TEST(ExploreMemory, LayersSplitEvenlyOrWithLighterEnds) {
  const auto even = split_layers(8, 2, 2);
  ASSERT_TRUE(even);
  EXPECT_TRUE(even->even);
  EXPECT_EQ(even->stage_layers, (std::vector<int>{4, 4}));
  // DeepSeek-V3's 61 layers on 16 stages: 14 of 4, the first 3 and the last 2.
  const auto ds = split_layers(61, 16, 1);
  ASSERT_TRUE(ds);
  EXPECT_FALSE(ds->even);
  EXPECT_EQ(ds->first_chunk(), 3);
  EXPECT_EQ(ds->last_chunk(), 2);
  EXPECT_EQ(ds->stage_layers[1], 4);
  // On 8 × 4 chunks the last holds no layer (the recipes put only the MTP block and the loss there).
  const auto ds_v = split_layers(61, 8, 4);
  ASSERT_TRUE(ds_v);
  EXPECT_EQ(ds_v->first_chunk(), 1);
  EXPECT_EQ(ds_v->last_chunk(), 0);
  EXPECT_FALSE(split_layers(1, 4, 1));  // fewer layers than chunks less the two ends
  EXPECT_EQ(split_layers(3, 4, 1)->stage_layers, (std::vector<int>{1, 1, 1, 0}));
  // Qwen3-235B's 94 layers over PP 32 × VPP 3: both end chunks empty, 94 chunks of one layer;
  // stage 0 holds chunks 0, 32, 64 (0 + 1 + 1), stage 31 chunks 31, 63, 95 (1 + 1 + 0).
  const auto qwen = split_layers(94, 32, 3);
  ASSERT_TRUE(qwen);
  EXPECT_EQ(qwen->first_chunk(), 0);
  EXPECT_EQ(qwen->last_chunk(), 0);
  EXPECT_EQ(qwen->stage_layers.front(), 2);
  EXPECT_EQ(qwen->stage_layers.back(), 2);
  EXPECT_EQ(qwen->stage_layers[1], 3);
  EXPECT_FALSE(split_layers(93, 32, 3));
  EXPECT_FALSE(split_layers(7, 2, 1));  // two uneven chunks: no middle to fill
  EXPECT_EQ(routing_imbalance(8, 0.0), 1.0);
  EXPECT_EQ(routing_imbalance(1, 2.0), 1.0);
  EXPECT_GT(routing_imbalance(16, 0.5), routing_imbalance(8, 0.5));  // wider EP, hotter busiest rank
}

// Megatron-LM's theoretical_memory_usage.py at the commit SOURCES.md names, run unchanged.
struct EstimatorCase {
  std::string name;
  Workload workload;
  ExploreLayout layout;
  TrainingSettings settings;
  double weight_and_optimizer = 0, activations = 0;
  bool mtp = false;
};

std::vector<EstimatorCase> estimator_cases() {
  std::ifstream in(std::string(MESHBENCH_TEST_DATA) + "/megatron-memory/estimator.json");
  const auto j = nlohmann::json::parse(in);
  std::vector<EstimatorCase> out;
  for (const auto& c : j["configs"]) {
    const auto& a = c["args"];
    EstimatorCase e;
    e.name = c["name"];
    Workload& w = e.workload;
    w.layers = a["num_layers"];
    w.hidden = a["hidden_size"];
    w.ffn_hidden = a["ffn_hidden_size"];
    w.vocab = a["padded_vocab_size"];
    w.gated_mlp = a["swiglu"];
    w.tied_embeddings = !a["untie_embeddings_and_output_weights"].get<bool>();
    const int heads = a["num_attention_heads"];
    const int groups = a["group_query_attention"].get<bool>() ? a["num_query_groups"].get<int>() : heads;
    const int d = a["kv_channels"];
    w.attention_params = 2.0 * w.hidden * d * (heads + groups);
    w.experts = a["num_experts"].is_null() ? 0 : a["num_experts"].get<int>();
    w.top_k = a["moe_router_topk"];
    w.moe_ffn_hidden = a["moe_ffn_hidden_size"].is_null() ? 0 : a["moe_ffn_hidden_size"].get<int>();
    w.shared_expert_ffn_hidden =
        a["moe_shared_expert_intermediate_size"].is_null() ? 0 : a["moe_shared_expert_intermediate_size"].get<int>();
    w.seq_len = a["seq_length"];
    e.mtp = !a["mtp_num_layers"].is_null();
    if (a["multi_latent_attention"].get<bool>()) continue;  // DeepSeek-V3: MLA and MTP, compared in docs/explore.md
    Layout& l = e.layout.layout;
    l.world = c["world_size"];
    l.tp = a["tensor_model_parallel_size"];
    l.pp = a["pipeline_model_parallel_size"];
    l.ep = a["expert_model_parallel_size"];
    l.etp = a["expert_tensor_parallel_size"];
    e.layout.vpp = a["virtual_pipeline_model_parallel_size"].is_null() ? 1 : a["virtual_pipeline_model_parallel_size"].get<int>();
    TrainingSettings& s = e.settings;
    s.micro_batch = a["micro_batch_size"];
    s.global_batch = c["num_microbatches"].get<int>() * s.micro_batch * l.dp();
    s.distributed_optimizer = a["use_distributed_optimizer"];
    s.sequence_parallel = a["sequence_parallel"];
    s.recompute = a["recompute_granularity"].is_null() ? Recompute::none : parse_recompute(a["recompute_granularity"]);
    s.allowance_gib = 0;
    s.fragmentation = 0;
    e.weight_and_optimizer = c["weight_and_optimizer_bytes"];
    e.activations = c["activation_bytes"];
    out.push_back(e);
  }
  return out;
}

TEST(ExploreMemory, WeightsAndOptimizerWithinFivePercentOfMegatronsEstimator) {
  const auto cases = estimator_cases();
  ASSERT_GE(cases.size(), 9U);
  for (const auto& c : cases) {
    const auto split = split_layers(c.workload.layers, c.layout.layout.pp, c.layout.vpp);
    ASSERT_TRUE(split) << c.name;
    const MemoryEstimate m = estimate_memory(c.workload, c.layout, *split, c.settings);
    // The estimator reports the first stage (embedding included, an untied output layer only at PP 1).
    const StageMemory& first = m.stages.front();
    const double ours = first.weights + first.gradients + first.optimizer;
    const double error = ours / c.weight_and_optimizer - 1;
    EXPECT_LT(std::abs(error), 0.05) << c.name << ": ours " << ours / 1073741824.0 << " GiB, Megatron's "
                                     << c.weight_and_optimizer / 1073741824.0;
    // Activations: the estimator counts every layer as dense (its MoE layers are not modelled),
    // so ours must be above it for MoE models and near it for dense ones (docs/explore.md).
    const double act_ratio = first.activations / c.activations;
    std::printf("megatron %-46s weights+optimizer %7.2f GiB (Megatron %7.2f, %+6.3f%%)  activations %6.2f GiB (Megatron %6.2f)\n",
                c.name.c_str(), ours / 1073741824.0, c.weight_and_optimizer / 1073741824.0, 100 * error, first.activations / 1073741824.0,
                c.activations / 1073741824.0);
    if (c.workload.experts > 1) {
      EXPECT_GT(act_ratio, 1.0) << c.name;
    } else if (c.settings.recompute == Recompute::selective) {  // its full-recompute case uses the no-recompute formula
      EXPECT_GT(act_ratio, 0.75) << c.name;
      EXPECT_LT(act_ratio, 1.25) << c.name;
    }
  }
}

}  // namespace
}  // namespace meshbench::mapping
