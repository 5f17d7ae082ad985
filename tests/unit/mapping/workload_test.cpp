// Per-step traffic checked against a worked example (Mixtral-8x7B-like
// on 4 nodes × 8 GPUs, TP2/SP PP2 EP8 ETP1, b=1 s=4096 bf16): b·s·h·a = 33,554,432 B.
#include "mapping/workload.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "tests/unit/mapping/workload_files.hpp"

namespace meshbench::mapping {

namespace {

using testing::error_of;
using testing::write_temp;

const OpTraffic* find(const std::vector<OpTraffic>& t, Dim d, Op op) {
  for (const auto& x : t) {
    if (x.dim == d && x.op == op) return &x;
  }
  return nullptr;
}

}  // namespace

TEST(Workload, MixtralWorkedExample) {
  Workload w;  // the defaults are the Mixtral-8x7B-like model of §7
  w.micro_batches = 1;
  const Layout l{.world = 32, .tp = 2, .cp = 1, .pp = 2, .ep = 8, .etp = 1};
  const auto t = step_traffic(w, l);
  const std::uint64_t act = 1ULL * 4096 * 4096 * 2;  // 33.6 MB

  // TP on the attention half of each of the rank's 16 layers: 2 all-gathers + 2 reduce-scatters
  // of b·s·h·a per layer → 4·(1/2)·33.6 MB = 67 MB of ring traffic per layer.
  ASSERT_NE(find(t, Dim::tp, Op::all_gather), nullptr);
  EXPECT_EQ(find(t, Dim::tp, Op::all_gather)->bytes, act);
  EXPECT_DOUBLE_EQ(find(t, Dim::tp, Op::all_gather)->calls_per_step, 32);
  EXPECT_DOUBLE_EQ(find(t, Dim::tp, Op::reduce_scatter)->calls_per_step, 32);
  EXPECT_EQ(find(t, Dim::tp, Op::all_reduce), nullptr);

  // EP: T = b·s/t = 2048 tokens, dispatch T·k·h·a = 33.6 MB, four all-to-alls per MoE layer.
  EXPECT_EQ(find(t, Dim::ep, Op::all_to_all)->bytes, 2048ULL * 2 * 4096 * 2);
  EXPECT_DOUBLE_EQ(find(t, Dim::ep, Op::all_to_all)->calls_per_step, 4 * 16);

  // PP: 16.8 MB per boundary per micro-batch per TP rank, each way.
  EXPECT_EQ(find(t, Dim::pp, Op::send_recv)->bytes, act / 2);
  EXPECT_DOUBLE_EQ(find(t, Dim::pp, Op::send_recv)->calls_per_step, 2);

  // DP: 32 layers × (2·4096² + 2·4096·1024) + router 32·4096·8 + embeddings 2·32000·4096
  // = 1,605,369,856 dense params; per rank /(t·p) = 401,342,464, FP32 → 1,605,369,856 B.
  EXPECT_DOUBLE_EQ(w.derived_dense_params(), 1'605'369'856.0);
  EXPECT_EQ(find(t, Dim::dp, Op::all_reduce)->bytes, 1'605'369'856ULL);
  EXPECT_DOUBLE_EQ(find(t, Dim::dp, Op::all_reduce)->calls_per_step, 1);

  // EDP: 32·8·3·4096·14336 = 45,097,156,608 expert params; per rank /(1·8·2), FP32: 11.3 GB.
  EXPECT_DOUBLE_EQ(w.derived_expert_params(), 45'097'156'608.0);
  EXPECT_EQ(find(t, Dim::edp, Op::all_reduce)->bytes, 11'274'289'152ULL);

  // No ETP (1) and no CP (1) traffic.
  EXPECT_EQ(find(t, Dim::etp, Op::all_gather), nullptr);
  EXPECT_EQ(find(t, Dim::cp, Op::all_gather), nullptr);
}

TEST(Workload, MicroBatchesScaleThePerMicroBatchOps) {
  Workload w;
  w.micro_batches = 8;
  const Layout l{.world = 32, .tp = 2, .cp = 1, .pp = 2, .ep = 8, .etp = 1};
  const auto t = step_traffic(w, l);
  EXPECT_DOUBLE_EQ(find(t, Dim::ep, Op::all_to_all)->calls_per_step, 4 * 16 * 8);
  EXPECT_DOUBLE_EQ(find(t, Dim::dp, Op::all_reduce)->calls_per_step, 1);  // once per step
}

TEST(Workload, ExpertTensorParallelAndContextParallel) {
  Workload w;
  w.micro_batches = 1;
  w.layers = 4;
  // ETP 2 = TP, CP 2: tokens per rank b·s/(t·c) = 4096/4 = 1024; ETP gathers te·T·k·h·a.
  const Layout l{.world = 32, .tp = 2, .cp = 2, .pp = 1, .ep = 2};
  const auto t = step_traffic(w, l);
  EXPECT_EQ(find(t, Dim::etp, Op::all_gather)->bytes, 2ULL * 1024 * 2 * 4096 * 2);
  EXPECT_DOUBLE_EQ(find(t, Dim::etp, Op::all_gather)->calls_per_step, 2 * 4);
  // CP: K and V of the whole sequence, h_kv/t wide: 2·b·s·(1024/2)·a, 3 per layer.
  EXPECT_EQ(find(t, Dim::cp, Op::all_gather)->bytes, 2ULL * 4096 * 512 * 2);
  EXPECT_DOUBLE_EQ(find(t, Dim::cp, Op::all_gather)->calls_per_step, 3 * 4);
  // TP activations are per CP rank: b·(s/c)·h·a.
  EXPECT_EQ(find(t, Dim::tp, Op::all_gather)->bytes, 2048ULL * 4096 * 2);
}

TEST(Workload, DenseModelWithoutSequenceParallelism) {
  Workload w;
  w.experts = 1;
  w.top_k = 1;
  w.sequence_parallel = false;
  w.distributed_optimizer = true;
  w.micro_batches = 1;
  const Layout l{.world = 16, .tp = 4, .cp = 1, .pp = 1};
  const auto t = step_traffic(w, l);
  // Attention and MLP blocks in each of 32 layers: one all-reduce forward, one backward each.
  EXPECT_DOUBLE_EQ(find(t, Dim::tp, Op::all_reduce)->calls_per_step, 2 * 64);
  EXPECT_NE(find(t, Dim::dp, Op::reduce_scatter), nullptr);
  EXPECT_NE(find(t, Dim::dp, Op::all_gather), nullptr);
  EXPECT_EQ(find(t, Dim::dp, Op::all_reduce), nullptr);
  EXPECT_EQ(find(t, Dim::ep, Op::all_to_all), nullptr);
  EXPECT_EQ(find(t, Dim::edp, Op::all_reduce), nullptr);
}

TEST(Workload, ChecksAgainstTheLayout) {
  Workload w;
  EXPECT_THROW(check_workload(w, {.world = 24, .tp = 1, .cp = 1, .pp = 1, .ep = 3}), InputError);  // 8 experts, EP 3
  w.experts = 0;
  EXPECT_THROW(check_workload(w, {.world = 8, .tp = 1, .cp = 1, .pp = 1, .ep = 2}), InputError);
  EXPECT_NO_THROW(check_workload(w, {.world = 8, .tp = 2}));
}

TEST(Workload, LoadsAFileAndRejectsBadOnes) {
  const auto good = write_temp("w_good.json", R"({"name": "m", "layers": 4, "hidden": 1024, "experts": 4, "top_k": 1, "dtype": "fp8"})");
  const Workload w = load_workload(good);
  EXPECT_EQ(w.name, "m");
  EXPECT_EQ(w.layers, 4);
  EXPECT_EQ(w.dtype, "fp8");
  EXPECT_EQ(w.ffn_hidden, Workload{}.ffn_hidden);  // unspecified keys keep their defaults
  EXPECT_EQ(workload_from_json(to_json(w), "round trip"), w);

  EXPECT_NE(error_of(::testing::TempDir() + "no_such_workload.json").find("cannot read workload file"), std::string::npos);
  EXPECT_NE(error_of(write_temp("w_bad.json", "{\"layers\": ")).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(write_temp("w_key.json", R"({"hiden": 4})")).find("unknown key 'hiden'"), std::string::npos);
  EXPECT_NE(error_of(write_temp("w_type.json", R"({"layers": "many"})")).find("'layers' must be an integer"), std::string::npos);
  EXPECT_NE(error_of(write_temp("w_zero.json", R"({"seq_len": 0})")).find("'seq_len' must be at least 1"), std::string::npos);
  // 2^64 - 1 once read as -1, "every layer".
  EXPECT_NE(error_of(write_temp("w_wrap.json", R"({"moe_layers": 18446744073709551615})")).find("'moe_layers' must be at least 0"),
            std::string::npos);
  EXPECT_NE(error_of(write_temp("w_dtype.json", R"({"dtype": "int4"})")).find("'dtype' is 'int4'"), std::string::npos);
  EXPECT_NE(error_of(write_temp("w_list.json", "[1, 2]")).find("must be a JSON object"), std::string::npos);
  EXPECT_NE(error_of(write_temp("w_topk.json", R"({"experts": 2, "top_k": 4})")).find("top_k 4 exceeds experts 2"), std::string::npos);
}

}  // namespace meshbench::mapping
