// Workload files as users have them: published Hugging Face configs, a Megatron-LM launch
// script, YAML and overlays. The volumes are checked op by op against figures worked out by
// hand in the comments; the parameter counts against the model cards.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "mapping/workload.hpp"
#include "mapping/workload_file.hpp"
#include "tests/unit/mapping/workload_files.hpp"

namespace meshbench::mapping {

namespace {

using testing::error_of;
using testing::write_temp;

const std::string kWorkloadConfigs = std::string(MESHBENCH_TEST_DATA) + "/model-configs/";
const std::string kMegatron = std::string(MESHBENCH_TEST_DATA) + "/megatron/";

const OpTraffic& op(const std::vector<OpTraffic>& t, Dim d, Op o) {
  for (const auto& x : t) {
    if (x.dim == d && x.op == o) return x;
  }
  throw std::runtime_error("no " + std::string(to_string(d)) + " " + std::string(to_string(o)) + " in the traffic");
}

bool has(const std::vector<OpTraffic>& t, Dim d) {
  for (const auto& x : t) {
    if (x.dim == d) return true;
  }
  return false;
}

// A published config with one key changed or removed, for the bad-input cases.
std::string edited_config(const std::string& model, const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(kWorkloadConfigs + model + "/config.json");
  nlohmann::json j = nlohmann::json::parse(in);
  edit(j);
  return write_temp(name, j.dump(2));
}

// Parameters within `tolerance` (a fraction) of a published figure given in billions.
void expect_near_published(double params, double published_billions, double tolerance) {
  EXPECT_NEAR(params / 1e9, published_billions, published_billions * tolerance) << "computed " << params / 1e9 << " B";
}

}  // namespace

// Mixtral-8x7B's config.json as published, at TP2 PP2 EP8 ETP1 on 32 GPUs (DP 8, EDP 2), with
// meshbench's training defaults: s = 4096, b = 1, 8 micro-batches, bf16 activations, fp32
// gradients, sequence parallelism, no distributed optimizer.
TEST(WorkloadFiles, MixtralConfigVolumesByHand) {
  const WorkloadFile f = read_workload_file(kWorkloadConfigs + "mixtral-8x7b-v0.1/config.json");
  EXPECT_EQ(f.format, "Hugging Face config.json (mixtral)");
  const Workload& w = f.workload;
  const Layout l{.world = 32, .tp = 2, .cp = 1, .pp = 2, .ep = 8, .etp = 1};
  check_workload(w, l);
  const auto t = step_traffic(w, l);

  // Activations of a micro-batch: b·s·h·a = 1·4096·4096·2 = 33,554,432 B.
  // TP: 32 layers / PP 2 = 16 per rank, each with one TP block (attention; the MoE MLP runs
  // under EP), AG + RS forward and backward: 2 each per block per micro-batch → 2·16·8 = 256.
  EXPECT_EQ(op(t, Dim::tp, Op::all_gather).bytes, 33'554'432U);
  EXPECT_DOUBLE_EQ(op(t, Dim::tp, Op::all_gather).calls_per_step, 256);
  EXPECT_EQ(op(t, Dim::tp, Op::reduce_scatter).bytes, 33'554'432U);
  EXPECT_DOUBLE_EQ(op(t, Dim::tp, Op::reduce_scatter).calls_per_step, 256);
  // PP: the TP rank's slice, 33,554,432 / 2 = 16,777,216 B, forward and backward per micro-batch: 16.
  EXPECT_EQ(op(t, Dim::pp, Op::send_recv).bytes, 16'777'216U);
  EXPECT_DOUBLE_EQ(op(t, Dim::pp, Op::send_recv).calls_per_step, 16);
  // EP: T = b·s/TP = 2048 tokens, T·k·h·a = 2048·2·4096·2 = 33,554,432 B; 4 per MoE layer per
  // micro-batch: 4·16·8 = 512.
  EXPECT_EQ(op(t, Dim::ep, Op::all_to_all).bytes, 33'554'432U);
  EXPECT_DOUBLE_EQ(op(t, Dim::ep, Op::all_to_all).calls_per_step, 512);
  // DP: dense = 32·(2·4096·4096 + 2·4096·(8·128)) attention + 32·4096·8 routers + 2·32000·4096
  // untied embeddings = 1,342,177,280 + 1,048,576 + 262,144,000 = 1,605,369,856; per rank
  // /(TP·PP) = 401,342,464 parameters, fp32: 1,605,369,856 B, once per step.
  EXPECT_EQ(op(t, Dim::dp, Op::all_reduce).bytes, 1'605'369'856U);
  EXPECT_DOUBLE_EQ(op(t, Dim::dp, Op::all_reduce).calls_per_step, 1);
  // EDP: experts = 32·8·3·4096·14336 = 45,097,156,608; per rank /(ETP·EP·PP = 16) =
  // 2,818,572,288, fp32: 11,274,289,152 B.
  EXPECT_EQ(op(t, Dim::edp, Op::all_reduce).bytes, 11'274'289'152U);
  EXPECT_DOUBLE_EQ(op(t, Dim::edp, Op::all_reduce).calls_per_step, 1);
  EXPECT_FALSE(has(t, Dim::cp));
  EXPECT_FALSE(has(t, Dim::etp));
  EXPECT_EQ(t.size(), 6U);
}

// DeepSeek-V3's config.json as published, with an overlay of training settings, at TP2 EP32
// ETP1 on 64 GPUs (DP 32, EDP 2, PP 1): its 3 dense first layers and one shared expert per
// MoE layer change TP, EP and DP traffic.
TEST(WorkloadFiles, DeepSeekV3DenseFirstLayersAndSharedExpertsByHand) {
  const std::string overlay = write_temp("dsv3_overlay.yaml", "model: " + kWorkloadConfigs +
                                                                  "deepseek-v3/config.json\n"
                                                                  "seq_len: 4096\nmicro_batch: 1\nmicro_batches: 4\n");
  const WorkloadFile f = read_workload_file(overlay);
  const Workload& w = f.workload;
  EXPECT_EQ(w.moe_layer_count(), 58);  // 61 layers, first_k_dense_replace 3
  EXPECT_EQ(w.shared_expert_ffn_hidden, 2048);
  const Layout l{.world = 64, .tp = 2, .cp = 1, .pp = 1, .ep = 32, .etp = 1};
  check_workload(w, l);
  const auto t = step_traffic(w, l);

  // act = 1·4096·7168·2 = 58,720,256 B. TP blocks per micro-batch: 61 attention + 3 dense MLPs
  // + 58 shared-expert MLPs = 122 (without the shared experts it would be 64); 2·122·4 = 976.
  EXPECT_EQ(op(t, Dim::tp, Op::all_gather).bytes, 58'720'256U);
  EXPECT_DOUBLE_EQ(op(t, Dim::tp, Op::all_gather).calls_per_step, 976);
  EXPECT_DOUBLE_EQ(op(t, Dim::tp, Op::reduce_scatter).calls_per_step, 976);
  // EP: only the 58 MoE layers dispatch. T = 4096/2 = 2048 tokens, T·k·h·a = 2048·8·7168·2 =
  // 234,881,024 B; 4·58·4 = 928 calls (61 layers would give 976).
  EXPECT_EQ(op(t, Dim::ep, Op::all_to_all).bytes, 234'881'024U);
  EXPECT_DOUBLE_EQ(op(t, Dim::ep, Op::all_to_all).calls_per_step, 928);
  // DP: MLA per layer = 7168·1536 (q down) + 1536·128·192 (q up) + 7168·576 (kv down + rope key)
  // + 512·128·256 (kv up) + 128·128·7168 (out) = 187,105,280; ×61 = 11,413,422,080. Dense first
  // layers 3·3·7168·18432 = 1,189,085,184 (intermediate_size, not moe_intermediate_size). Shared
  // experts 58·3·7168·2048 = 2,554,331,136 (over DP, not EDP). Routers 58·7168·256 =
  // 106,430,464. Embeddings 2·129280·7168 = 1,853,358,080. Sum 17,116,626,944; per rank /TP
  // = 8,558,313,472, fp32: 34,233,253,888 B.
  EXPECT_EQ(op(t, Dim::dp, Op::all_reduce).bytes, 34'233'253'888U);
  // EDP: routed experts only, 58·256·3·7168·2048 = 653,908,770,816; per rank /(ETP·EP) = 32,
  // fp32: 81,738,596,352 B.
  EXPECT_EQ(op(t, Dim::edp, Op::all_reduce).bytes, 81'738'596'352U);
  EXPECT_FALSE(has(t, Dim::pp));
  EXPECT_FALSE(has(t, Dim::etp));
}

// Published totals and active parameters. Tolerance 2%: the cards round to three figures
// (DeepSeek's "37B" to two, ±1.4%), and norms, biases and attention sinks are left out (below
// 0.1% for these models). DeepSeek-V3's 671B excludes its multi-token-prediction module, as
// meshbench does.
TEST(WorkloadFiles, ParameterCountsNearThePublishedTotals) {
  const Workload mixtral = load_workload(kWorkloadConfigs + "mixtral-8x7b-v0.1/config.json");
  expect_near_published(mixtral.derived_dense_params() + mixtral.derived_expert_params(), 46.7, 0.02);
  expect_near_published(mixtral.active_params(), 12.9, 0.02);
  const Workload dsv3 = load_workload(kWorkloadConfigs + "deepseek-v3/config.json");
  expect_near_published(dsv3.derived_dense_params() + dsv3.derived_expert_params(), 671, 0.02);
  expect_near_published(dsv3.active_params(), 37, 0.02);
  const Workload qwen = load_workload(kWorkloadConfigs + "qwen3-30b-a3b/config.json");
  expect_near_published(qwen.derived_dense_params() + qwen.derived_expert_params(), 30.5, 0.02);
  expect_near_published(qwen.active_params(), 3.3, 0.02);
  const Workload olmoe = load_workload(kWorkloadConfigs + "olmoe-1b-7b-0924/config.json");
  expect_near_published(olmoe.derived_dense_params() + olmoe.derived_expert_params(), 6.9, 0.02);
  expect_near_published(olmoe.active_params(), 1.3, 0.02);
  // gpt-oss-120b's card: 117B total (its 5.1B active leaves the embeddings out, which this count keeps).
  const Workload oss = load_workload(kWorkloadConfigs + "gpt-oss-120b/config.json");
  expect_near_published(oss.derived_dense_params() + oss.derived_expert_params(), 117, 0.02);
}

TEST(WorkloadFiles, ModelShapesFromEachFamily) {
  const WorkloadFile qwen = read_workload_file(kWorkloadConfigs + "qwen3-30b-a3b/config.json");
  EXPECT_EQ(qwen.workload.kv_hidden, 4 * 128);  // GQA: 4 K/V heads of 128
  EXPECT_EQ(qwen.workload.moe_layer_count(), 48);
  EXPECT_EQ(qwen.workload.expert_ffn(), 768);
  EXPECT_EQ(qwen.workload.top_k, 8);
  const WorkloadFile oss = read_workload_file(kWorkloadConfigs + "gpt-oss-120b/config.json");
  // Heads 64 of 64 wide: Q and O are 2880 × 4096, not h × h.
  EXPECT_DOUBLE_EQ(oss.workload.attention_params, 2.0 * 2880 * 4096 + 2.0 * 2880 * 512);
  EXPECT_EQ(oss.workload.experts, 128);
  EXPECT_EQ(oss.workload.dtype, "bf16");
  const WorkloadFile dsv3 = read_workload_file(kWorkloadConfigs + "deepseek-v3/config.json");
  EXPECT_EQ(dsv3.workload.kv_hidden, 128 * (128 + 64 + 128) / 2);  // MLA's up-projected K and V around a CP ring
  EXPECT_FALSE(dsv3.workload.tied_embeddings);
  // What the file has and meshbench leaves out is listed, not lost.
  EXPECT_NE(std::find(dsv3.ignored.begin(), dsv3.ignored.end(), "rope_scaling"), dsv3.ignored.end());
  bool mtp_noted = false;
  for (const auto& n : dsv3.notes) mtp_noted = mtp_noted || n.find("multi-token-prediction") != std::string::npos;
  EXPECT_TRUE(mtp_noted);
}

// The Megatron-LM launch script of the same Mixtral gives the same model and the layout and
// batch it launches: TP2 PP2 EP8 on torchrun's 8 × 4 GPUs, global batch 256 → 256/(1·DP 8) = 32
// micro-batches per step.
TEST(WorkloadFiles, MegatronScriptGivesWorkloadAndLayout) {
  const WorkloadFile f = read_workload_file(kMegatron + "train_mixtral_8x7b.sh");
  EXPECT_EQ(f.format, "Megatron-LM arguments");
  ASSERT_TRUE(f.layout.tp && f.layout.pp && f.layout.ep && f.layout.world);
  EXPECT_EQ(*f.layout.tp, 2);
  EXPECT_EQ(*f.layout.pp, 2);
  EXPECT_EQ(*f.layout.ep, 8);
  EXPECT_EQ(*f.layout.world, 32);
  const Workload& w = f.workload;
  EXPECT_TRUE(w.sequence_parallel);
  EXPECT_TRUE(w.distributed_optimizer);
  EXPECT_EQ(w.grad_dtype, "fp32");  // --bf16: Megatron reduces gradients in fp32
  const Layout l{.world = 32, .tp = 2, .cp = 1, .pp = 2, .ep = 8};
  EXPECT_EQ(w.micro_batches_per_step(l), 32);
  // Same shape as the published config.json: same parameters, same per-micro-batch sizes.
  const Workload hf = load_workload(kWorkloadConfigs + "mixtral-8x7b-v0.1/config.json");
  EXPECT_DOUBLE_EQ(w.derived_dense_params(), hf.derived_dense_params());
  EXPECT_DOUBLE_EQ(w.derived_expert_params(), hf.derived_expert_params());
  const auto t = step_traffic(w, l);
  EXPECT_EQ(op(t, Dim::ep, Op::all_to_all).bytes, 33'554'432U);
  EXPECT_DOUBLE_EQ(op(t, Dim::ep, Op::all_to_all).calls_per_step, 4 * 16 * 32);
  // The distributed optimizer: reduce-scatter of fp32 gradients, all-gather of bf16 parameters.
  EXPECT_EQ(op(t, Dim::dp, Op::reduce_scatter).bytes, 1'605'369'856U);
  EXPECT_EQ(op(t, Dim::dp, Op::all_gather).bytes, 1'605'369'856U / 2);
  // Arguments that do not change the traffic are listed.
  EXPECT_NE(std::find(f.ignored.begin(), f.ignored.end(), "--lr"), f.ignored.end());
}

TEST(WorkloadFiles, MegatronArgumentListWithSharedExpertsAndLayerPattern) {
  const WorkloadFile f = read_workload_file(kMegatron + "deepseek_v3_style.args");
  const Workload& w = f.workload;
  EXPECT_EQ(w.moe_layer_count(), 58);
  EXPECT_EQ(w.shared_expert_ffn_hidden, 2048);
  EXPECT_FALSE(w.tied_embeddings);
  // The same MLA sizes as the config.json: the same parameters.
  const Workload hf = load_workload(kWorkloadConfigs + "deepseek-v3/config.json");
  EXPECT_DOUBLE_EQ(w.derived_dense_params(), hf.derived_dense_params());
  EXPECT_DOUBLE_EQ(w.derived_expert_params(), hf.derived_expert_params());
  // Global batch 128 over DP 32 (64 GPUs / TP 2): 4 micro-batches.
  EXPECT_EQ(w.micro_batches_per_step({.world = 64, .tp = 2, .ep = 32, .etp = 1}), 4);
}

TEST(WorkloadFiles, YamlMeansWhatTheSameJsonMeans) {
  const auto json = write_temp("w.json", R"({"name": "m", "layers": 4, "hidden": 1024, "experts": 4, "top_k": 1, "dtype": "fp8",
                                             "sequence_parallel": false, "capacity_factor": 1.25})");
  const auto yaml = write_temp("w.yaml",
                               "# the same model\nname: \"m\"\nlayers: 4\nhidden: 1024\nexperts: 4\ntop_k: 1\n"
                               "dtype: fp8\nsequence_parallel: false\ncapacity_factor: 1.25\n");
  EXPECT_EQ(load_workload(yaml), load_workload(json));
  EXPECT_EQ(read_workload_file(yaml).format, "meshbench YAML");
  // A quoted number is a string in YAML, and a size must be an integer.
  EXPECT_NE(error_of(write_temp("q.yaml", "layers: \"4\"\n")).find("'layers' must be an integer"), std::string::npos);
}

TEST(WorkloadFiles, OverlaySetsOnlyTrainingSettings) {
  const std::string model = kWorkloadConfigs + "mixtral-8x7b-v0.1/config.json";
  const auto good = write_temp("ov.yaml", "model: " + model + "\nseq_len: 8192\nglobal_batch: 512\ndistributed_optimizer: true\n");
  const Workload w = load_workload(good);
  EXPECT_EQ(w.seq_len, 8192);
  EXPECT_EQ(w.global_batch, 512);
  EXPECT_TRUE(w.distributed_optimizer);
  EXPECT_EQ(w.hidden, 4096);
  const auto shape = write_temp("ov_bad.yaml", "model: " + model + "\nhidden: 1024\n");
  EXPECT_NE(error_of(shape).find("'hidden' describes the model"), std::string::npos);
}

TEST(WorkloadFiles, GlobalBatchMustFillTheDataParallelRanks) {
  Workload w;
  w.global_batch = 100;
  EXPECT_THROW(check_workload(w, {.world = 32, .tp = 2, .pp = 2, .ep = 8}), InputError);  // 100 % (1·8) != 0
  w.global_batch = 96;
  EXPECT_NO_THROW(check_workload(w, {.world = 32, .tp = 2, .pp = 2, .ep = 8}));
  EXPECT_EQ(w.micro_batches_per_step({.world = 32, .tp = 2, .pp = 2, .ep = 8}), 12);
}

// Bad input: one line naming the problem and the way out.
TEST(WorkloadFiles, UnknownModelTypeNamesItAndTheSupportedOnes) {
  const auto path = edited_config("mixtral-8x7b-v0.1", "falcon.json", [](nlohmann::json& j) {
    j["model_type"] = "falcon";
    j["architectures"] = {"FalconForCausalLM"};
  });
  const std::string e = error_of(path);
  EXPECT_NE(e.find("model type 'falcon'"), std::string::npos) << e;
  EXPECT_NE(e.find("llama, mistral, qwen2, qwen3 (dense); mixtral, deepseek_v3"), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(WorkloadFiles, MissingKeyThatMattersIsNamed) {
  const auto mixtral = edited_config("mixtral-8x7b-v0.1", "no_experts.json", [](nlohmann::json& j) { j.erase("num_local_experts"); });
  EXPECT_NE(error_of(mixtral).find("lacks 'num_local_experts'"), std::string::npos) << error_of(mixtral);
  const auto dsv3 = edited_config("deepseek-v3", "no_dense.json", [](nlohmann::json& j) { j.erase("first_k_dense_replace"); });
  EXPECT_NE(error_of(dsv3).find("lacks 'first_k_dense_replace'"), std::string::npos) << error_of(dsv3);
  // A traffic key the family does not read is refused rather than ignored.
  const auto stray = edited_config("mixtral-8x7b-v0.1", "stray.json", [](nlohmann::json& j) { j["n_shared_experts"] = 2; });
  EXPECT_NE(error_of(stray).find("'n_shared_experts' changes the traffic"), std::string::npos) << error_of(stray);
}

TEST(WorkloadFiles, MegatronArgumentsThatChangeTrafficUnmodelledAreRefused) {
  const std::string base =
      "--num-layers 4 --hidden-size 1024 --num-attention-heads 8 --seq-length 2048 --micro-batch-size 1 "
      "--num-experts 4 --moe-token-dispatcher-type alltoall ";
  EXPECT_NO_THROW((void)read_workload_file(write_temp("ok.args", base)));
  const std::string vpp = error_of(write_temp("vpp.args", base + "--num-layers-per-virtual-pipeline-stage 2"));
  EXPECT_NE(vpp.find("--num-layers-per-virtual-pipeline-stage"), std::string::npos) << vpp;
  const std::string unknown = error_of(write_temp("typo.args", base + "--moe-expert-count 8"));
  EXPECT_NE(unknown.find("--moe-expert-count is not understood"), std::string::npos) << unknown;
  const std::string dispatcher = error_of(write_temp("ag.args",
                                                     "--num-layers 4 --hidden-size 1024 --num-attention-heads 8 "
                                                     "--seq-length 2048 --micro-batch-size 1 --num-experts 4"));
  EXPECT_NE(dispatcher.find("allgather (Megatron's default)"), std::string::npos) << dispatcher;
  const std::string unset = error_of(write_temp("var.sh", "TP=${TP}\n" + base + "--tensor-model-parallel-size $TP\n"));
  EXPECT_NE(unset.find("--tensor-model-parallel-size is '${TP}', not a number"), std::string::npos) << unset;
  const std::string missing = error_of(write_temp("nolayers.args", "--hidden-size 1024 --num-attention-heads 8"));
  EXPECT_NE(missing.find("lack --num-layers"), std::string::npos) << missing;
}

TEST(WorkloadFiles, MalformedYamlNamesTheLine) {
  const std::string e = error_of(write_temp("bad.yaml", "layers: 4\nhidden: [1, 2\nexperts: 8\n"));
  EXPECT_NE(e.find("not valid YAML"), std::string::npos) << e;
  EXPECT_NE(e.find("line "), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

}  // namespace meshbench::mapping
