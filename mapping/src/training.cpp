// Memory per GPU of a training layout: Megatron-Core's parameter sharding and its estimator's
// bytes per parameter, Korthikanti et al.'s activations per layer widened to gated MLPs and
// routed experts, and the 1F1B schedule's in-flight micro-batches (docs/explore.md).
#include "mapping/training.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"

namespace meshbench::mapping {

namespace {

double mlp_params(const Workload& w, double width) { return (w.gated_mlp ? 3.0 : 2.0) * w.hidden * width; }

double embedding_params(const Workload& w) { return static_cast<double>(w.vocab) * w.hidden; }

// One layer's parameters, split by how Megatron shards them: `split` over TP, `replicated`
// (norms, router) on every TP rank, `experts` over EP × ETP.
struct LayerParams {
  double split = 0, replicated = 0, experts = 0;
};

LayerParams layer_params(const Workload& w, bool moe) {
  LayerParams p;
  const double h = w.hidden;
  const double attention = w.attention_params > 0 ? w.attention_params : 2.0 * h * h + 2.0 * h * w.kv_hidden;
  p.split = attention;
  p.replicated = 2.0 * h;  // the two RMSNorms
  if (moe) {
    p.split += mlp_params(w, w.shared_expert_ffn_hidden);
    p.replicated += h * std::max(w.experts, 1);  // router
    p.experts = static_cast<double>(w.experts) * mlp_params(w, w.expert_ffn());
  } else {
    p.split += mlp_params(w, w.ffn_hidden);
  }
  // A workload that states totals instead of sizes: spread them evenly over the layers.
  if (w.dense_params > 0) {
    p.split = std::max(0.0, w.dense_params - (w.tied_embeddings ? 1.0 : 2.0) * embedding_params(w)) / w.layers;
    p.replicated = 0;
  }
  if (w.expert_params > 0 && moe) p.experts = w.expert_params / std::max(1, w.moe_layer_count());
  return p;
}

struct Bytes {
  double weight, grad, master, moments;
};

Bytes bytes_per_param(const Workload& w, const TrainingSettings& s) {
  // Megatron keeps 16-bit weights (fp8 training casts from them), fp32 main gradients unless the
  // workload reduces in 16 bits, and an fp32 master copy unless the weights already are fp32.
  const double weight = w.dtype == "fp32" ? 4.0 : 2.0;
  return {weight, static_cast<double>(dtype_bytes(w.grad_dtype)), weight == 4.0 ? 0.0 : 4.0, s.precision_aware_optimizer ? 4.0 : 8.0};
}

// 1F1B keeps min(pp - r, m) micro-batches on stage r; interleaved, (pp - r - 1)·2 + (vpp - 1)·pp + 1
// chunks of 1/vpp of the stage each (Megatron-Core's warm-up plus the one in steady state).
double micro_batches_in_flight(int pp, int vpp, int stage, int micro_batches) {
  if (vpp == 1) return std::min(pp - stage, micro_batches);
  return std::min((pp - stage - 1) * 2 + (vpp - 1) * pp + 1, micro_batches * vpp) / static_cast<double>(vpp);
}

}  // namespace

std::string to_string(Recompute r) {
  switch (r) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
  }
  return "none";
}

Recompute parse_recompute(const std::string& name) {
  if (name == "none") return Recompute::none;
  if (name == "selective") return Recompute::selective;
  if (name == "full") return Recompute::full;
  throw InputError("unknown recompute '" + name + "'; use none, selective or full");
}

bool is_moe_layer(const Workload& w, int layer) {
  if (w.experts > 1 && !w.moe_layer_pattern.empty()) return w.moe_layer_pattern[static_cast<std::size_t>(layer)] == 1;
  return layer >= w.layers - w.moe_layer_count();
}

std::vector<std::vector<int>> StageSplit::layers_by_stage() const {
  std::vector<std::vector<int>> out(stage_layers.size());
  int next = 0;
  for (std::size_t j = 0; j < chunk_layers.size(); ++j) {
    for (int i = 0; i < chunk_layers[j]; ++i) out[j % out.size()].push_back(next++);
  }
  return out;
}

std::optional<StageSplit> split_layers(int layers, int pp, int vpp) {
  const int chunks = pp * vpp;
  // Two fewer layers than chunks still split: the first chunk keeps the embedding alone and the
  // last the loss alone (Qwen3-235B's 94 layers over PP 32 × VPP 3 as Megatron's
  // --pipeline-model-parallel-layout gives it).
  if (layers < (chunks >= 3 ? chunks - 2 : chunks)) return std::nullopt;
  StageSplit s;
  if (layers % chunks == 0) {
    s.chunk_layers.assign(chunks, layers / chunks);
  } else {
    // Megatron's uneven split: the middle chunks hold c layers each and the first and last chunk
    // share the rest, the first (beside the embedding) the larger half. An end chunk may hold no
    // layer at all: DeepSeek-V3's recipes give the last one only the MTP block and the loss, and
    // with two layers fewer than chunks both end chunks are empty.
    if (chunks < 3) return std::nullopt;
    const int c = (layers + chunks - 1) / chunks;
    const int rest = layers - (chunks - 2) * c;
    const int last = rest / 2, first = rest - last;
    if (rest < 0 || first > c) return std::nullopt;
    s.even = false;
    s.chunk_layers.assign(chunks, c);
    s.chunk_layers.front() = first;
    s.chunk_layers.back() = last;
  }
  s.stage_layers.assign(pp, 0);
  for (int j = 0; j < chunks; ++j) s.stage_layers[j % pp] += s.chunk_layers[j];
  return s;
}

double layer_activation_bytes(const Workload& w, const Layout& l, const TrainingSettings& s, bool moe, double routed_factor) {
  const double t = l.tp;
  const double tokens = static_cast<double>(s.micro_batch) * w.seq_len / l.cp;
  const double h = w.hidden;
  const bool sp = s.sequence_parallel && l.tp > 1;
  const double rdiv = sp ? t : 1.0;  // what sequence parallelism splits of the otherwise replicated terms
  const bool selective = s.recompute == Recompute::selective;
  const double act_scale = dtype_bytes(w.dtype == "fp8" ? "bf16" : w.dtype) / 2.0;  // the formulas count 16-bit values

  // A GEMM's input kept for its backward: 2 bytes, or 1 where Transformer Engine runs the GEMM in
  // FP8 and keeps the FP8 copy it made.
  const double gemm_in = s.precision == "fp8" ? 1.0 : 2.0;

  // Attention (flash attention keeps no s² scores): the QKV GEMM's input and the output dropout
  // mask per token replicated; Q, K, V and the output projection's input split over TP.
  double per_token = (gemm_in * h + h) / rdiv + (6.0 * h + gemm_in * h) / t;
  if (!selective) per_token += 4.0 * h / rdiv;  // the two norms' inputs (selective recomputes them)
  // The MLP block's input (FC1's) and dropout mask.
  per_token += (gemm_in * h + h) / rdiv;
  const double gated = w.gated_mlp ? 2.0 : 1.0;
  // FC1's output (the activation's input) and the activation's output (FC2's input).
  auto mlp = [&](double width) { return (2.0 * gated * width + (selective ? 0.0 : gemm_in * width)) / t; };
  if (!moe) {
    per_token += mlp(w.ffn_hidden);
    return act_scale * tokens * per_token;
  }
  per_token += mlp(w.shared_expert_ffn_hidden);
  // Routed experts, per token on this rank (the rank's share of the sequence with SP), each of
  // its top_k copies: the permuted input (gathered over ETP), FC1's output and the activation's
  // (the expert width split over ETP), the combine's output; router probabilities and the
  // permutation map over all experts.
  const double etp = l.expert_tp(), f = w.expert_ffn();
  const double k = w.top_k * w.capacity_factor * routed_factor;
  const double routed =
      k * (etp * gemm_in * h + 2.0 * gated * f + (selective ? 0.0 : gemm_in * f) + 2.0 * h) + 10.0 * std::max(w.experts, 1);
  per_token += routed / rdiv;
  return act_scale * tokens * per_token;
}

double layer_forward_flops(const Workload& w, bool moe) {
  const LayerParams p = layer_params(w, moe);
  // 2 FLOPs per parameter and token for the matrices, plus the causal attention core (QKᵀ and AV
  // over half the sequence on average).
  double linear = p.split + p.replicated;
  if (moe) linear += p.experts * w.top_k / std::max(w.experts, 1);
  return 2.0 * linear + 2.0 * w.seq_len * static_cast<double>(w.hidden) * w.full_attention_share();
}

MemoryEstimate estimate_memory(const Workload& w, const ExploreLayout& el, const StageSplit& split, const TrainingSettings& s) {
  const Layout& l = el.layout;
  const int pp = l.pp, vpp = el.vpp;
  const double t = l.tp;
  const Bytes b = bytes_per_param(w, s);
  const double dense_shards = s.distributed_optimizer ? static_cast<double>(l.dp()) * l.cp : 1.0;
  const double expert_shards = s.distributed_optimizer ? static_cast<double>(l.edp()) : 1.0;
  const int micro_batches = std::max(1, s.global_batch / std::max(1, s.micro_batch * l.dp()));
  const double imbalance = routing_imbalance(l.ep, s.routing_skew);
  const TrainingSettings full_store = [&] {
    TrainingSettings copy = s;
    copy.recompute = Recompute::none;
    return copy;
  }();
  const double tokens = static_cast<double>(s.micro_batch) * w.seq_len / l.cp;

  const std::vector<std::vector<int>> layers_of = split.layers_by_stage();

  auto stage_memory = [&](int r, double routed_factor) {
    StageMemory m;
    m.stage = r;
    m.layers = static_cast<int>(layers_of[r].size());
    double dense = 0, experts = 0, per_mb = 0, recompute_input = 0, working = 0;
    auto add_layer = [&](bool moe) {
      const LayerParams p = layer_params(w, moe);
      dense += p.split / t + p.replicated;
      experts += p.experts / (static_cast<double>(l.ep) * l.expert_tp());
      per_mb += layer_activation_bytes(w, l, s, moe, routed_factor);
      recompute_input += 2.0 * tokens * w.hidden / (s.sequence_parallel && l.tp > 1 ? t : 1.0);
      working = std::max(working, layer_activation_bytes(w, l, full_store, moe, routed_factor));
    };
    for (int i : layers_of[r]) add_layer(is_moe_layer(w, i));
    const bool first = r == 0, last = r == pp - 1;
    if (last) {
      for (int i = 0; i < w.mtp_layers; ++i) {
        add_layer(is_moe_layer(w, w.layers - 1));
        dense += 2.0 * w.hidden * static_cast<double>(w.hidden) / t;  // MTP's projection of [h; embedding]
      }
    }
    if (first) dense += embedding_params(w) / t;
    if (last) {
      dense += w.hidden;  // the final norm
      if (!w.tied_embeddings || pp > 1) dense += embedding_params(w) / t;
    }
    if (s.recompute == Recompute::full) per_mb = recompute_input;
    if (first) per_mb += tokens * (8.0 + w.hidden) / (s.sequence_parallel && l.tp > 1 ? t : 1.0);  // token ids, embedding output

    m.activations = micro_batches_in_flight(pp, vpp, r, micro_batches) * per_mb;
    if (s.recompute == Recompute::full) m.activations += working;                             // one layer recomputed at a time
    if (last) m.activations += 4.0 * tokens * (w.hidden + static_cast<double>(w.vocab)) / t;  // fp32 logits and the loss
    m.parameters = dense + experts;
    m.weights = m.parameters * b.weight;
    m.gradients = m.parameters * b.grad;
    m.optimizer = dense * (b.master + b.moments) / dense_shards + experts * (b.master + b.moments) / expert_shards;
    m.allowance = s.allowance_gib * kBytesPerGiB + s.fragmentation * m.activations;
    return m;
  };

  MemoryEstimate e;
  for (int r = 0; r < pp; ++r) e.stages.push_back(stage_memory(r, 1.0));
  std::vector<StageMemory> sorted = e.stages;
  std::sort(sorted.begin(), sorted.end(), [](const StageMemory& a, const StageMemory& b2) { return a.total() < b2.total(); });
  e.minimum = sorted.front();
  e.typical = sorted[sorted.size() / 2];
  e.maximum = sorted.back();
  if (imbalance > 1.0) {  // without skew the stages above are the answer; with it, price each again
    e.maximum = stage_memory(sorted.back().stage, imbalance);
    for (int r = 0; r < pp; ++r) {
      const StageMemory skewed = stage_memory(r, imbalance);
      if (skewed.total() > e.maximum.total()) e.maximum = skewed;
    }
  }
  return e;
}

Workload workload_for_step(Workload w, const TrainingSettings& s) {
  w.micro_batch = s.micro_batch;
  w.global_batch = s.global_batch;
  w.sequence_parallel = s.sequence_parallel;
  w.distributed_optimizer = s.distributed_optimizer;
  return w;
}

}  // namespace meshbench::mapping
