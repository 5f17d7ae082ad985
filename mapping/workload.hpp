#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "mapping/layout.hpp"
#include "mapping/ops.hpp"

namespace meshbench::mapping {

// The model side, from which each dimension's message sizes per step follow
// (docs/mapping.md, "Workload files", has the formulas and the keys). Read from any workload
// file (`--workload FILE`, mapping/workload_file.hpp).
struct Workload {
  std::string name;
  int layers = 32;
  int hidden = 4096;
  int ffn_hidden = 14336;  // dense MLP width; also per expert when moe_ffn_hidden is 0
  int kv_hidden = 1024;    // K/V width (GQA; MLA: the mean of K's and V's widths); CP ring traffic
  int heads = 0;           // query heads; 0 = unknown (explore then skips the TP divisibility rule)
  int kv_heads = 0;        // K/V heads (Megatron's query groups); MLA: the query heads; 0 = unknown
  int mtp_layers = 0;      // multi-token-prediction layers after the last stage (DeepSeek-V3: 1); explore's memory only
  int seq_len = 4096;
  int micro_batch = 1;
  int micro_batches = 8;  // per step (gradient accumulation / pipeline depth)
  int global_batch = 0;   // sequences per step over all DP ranks; 0 = micro_batches decides
  int experts = 8;        // 0 or 1: a dense model
  int top_k = 2;
  int moe_ffn_hidden = 0;            // width of one routed expert; 0 = ffn_hidden
  int shared_expert_ffn_hidden = 0;  // all shared experts of a MoE layer together (Megatron's size); 0 = none
  double attention_params = 0;       // per layer; 0 = derive 2h² + 2h·kv_hidden (MLA, wider heads: give it)
  bool tied_embeddings = false;      // input embedding and output layer share one matrix
  bool gated_mlp = true;             // SwiGLU: three h×ffn matrices per MLP; false: two (GeLU)
  std::string dtype = "bf16";        // activations: bf16 | fp16 | fp32 | fp8
  std::string grad_dtype = "fp32";
  double dense_params = 0;   // parameters outside the experts; 0 = derive from the sizes
  double expert_params = 0;  // parameters of all experts together; 0 = derive from the sizes
  int vocab = 32000;         // for the derived embedding and output-layer parameters
  int moe_layers = -1;       // how many layers are MoE layers; -1 = all when experts > 1
  // Which layers are MoE layers, 1 per MoE layer in layer order (Llama 4's interleaved layers,
  // Megatron's --moe-layer-freq); empty = the last moe_layers layers (dense first layers).
  std::vector<int> moe_layer_pattern;
  // Layers whose attention core is quadratic softmax attention; -1 = all. The rest are linear
  // attention layers (Qwen3-Next's Gated DeltaNet) whose core grows with the sequence, not its square.
  int full_attention_layers = -1;
  double capacity_factor = 1.0;        // dispatch volume factor (1 = dropless, uniform routing)
  bool sequence_parallel = true;       // TP as all-gather/reduce-scatter (Megatron needs it with MoE)
  bool distributed_optimizer = false;  // DP as reduce-scatter + all-gather instead of all-reduce
  bool operator==(const Workload&) const = default;

  int moe_layer_count() const;
  // Share of the layers with a quadratic attention core (1 unless full_attention_layers is given).
  double full_attention_share() const { return full_attention_layers < 0 ? 1.0 : static_cast<double>(full_attention_layers) / layers; }
  int expert_ffn() const { return moe_ffn_hidden > 0 ? moe_ffn_hidden : ffn_hidden; }
  // Micro-batches per step on one DP rank: global_batch / (micro_batch · DP) when the global
  // batch is given, else micro_batches.
  int micro_batches_per_step(const Layout& layout) const;
  double derived_dense_params() const;   // includes shared experts and routers: their gradients reduce over DP
  double derived_expert_params() const;  // routed experts only: their gradients reduce over EDP
  double active_params() const;          // per token: dense parameters plus top_k routed experts per MoE layer
};

// One op a dimension runs per training step: its per-rank size in nccl-tests' convention and
// how many times it runs per step.
struct OpTraffic {
  Dim dim;
  Op op;
  std::uint64_t bytes;
  double calls_per_step;
};

// Bytes per element of a dtype name; InputError for an unknown one.
int dtype_bytes(const std::string& dtype);

// Every op each dimension runs per training step on one rank (docs/mapping.md, "Workload files"). Dims
// of size 1 run nothing. DP traffic runs over Megatron's dp-cp group.
std::vector<OpTraffic> step_traffic(const Workload& workload, const Layout& layout);

// What plan ranks by when no workload is given: one training step of Mixtral-8x7B's shape (the
// defaults above: 32 layers, hidden 4096, 8 experts top-2, sequence 4096, micro-batch 1 × 8),
// its experts raised to a multiple of EP and its sequence to a multiple of CP so that any layout
// runs it. Each dimension's ops then weigh as often as a training step runs them.
Workload default_workload(const Layout& layout);
inline constexpr const char* kDefaultWorkloadName = "default (Mixtral-8x7B-shaped)";

// Throws InputError when the workload cannot run on the layout (e.g. experts not divisible by EP).
void check_workload(const Workload& workload, const Layout& layout);

// Any workload file -> Workload (mapping/workload_file.hpp reads the formats: meshbench's own
// JSON or YAML, a Hugging Face config.json, a Megatron-LM launch script, an overlay); one-line
// InputError naming the file and the problem (missing file, malformed JSON, unknown key, wrong
// type, a size below 1, unknown dtype, unknown model type, a missing key that matters).
Workload load_workload(const std::string& path);
Workload workload_from_json(const nlohmann::json& json, const std::string& where);
nlohmann::json to_json(const Workload& workload);

}  // namespace meshbench::mapping
