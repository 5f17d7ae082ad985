// Per-step communication volumes of a transformer / MoE layer, per rank, in nccl-tests' size
// convention (the full buffer: gathered size for all-gather, input size for reduce-scatter,
// send buffer for all-to-all). The formulas are tabled in docs/mapping.md, "Workload files".
#include "mapping/workload.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.hpp"

namespace meshbench::mapping {

namespace {

std::uint64_t to_bytes(double v) { return static_cast<std::uint64_t>(std::llround(std::max(v, 0.0))); }

// Attention: Q and O are h×h, K and V are h×h_kv, unless the file gave the count (MLA, heads
// wider than h/heads). A gated MLP (SwiGLU) has three h×ffn matrices; norms and biases are left
// out (under 0.1% of these models).
double layer_attention_params(const Workload& w) {
  return w.attention_params > 0 ? w.attention_params : 2.0 * w.hidden * w.hidden + 2.0 * w.hidden * w.kv_hidden;
}
double mlp_params(const Workload& w, int ffn) { return (w.gated_mlp ? 3.0 : 2.0) * w.hidden * static_cast<double>(ffn); }

}  // namespace

int dtype_bytes(const std::string& dtype) {
  if (dtype == "fp32") return 4;
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp8") return 1;
  throw InputError("unknown dtype '" + dtype + "'; use bf16, fp16, fp32 or fp8");
}

int Workload::moe_layer_count() const {
  if (experts <= 1) return 0;
  if (!moe_layer_pattern.empty()) return static_cast<int>(std::count(moe_layer_pattern.begin(), moe_layer_pattern.end(), 1));
  return moe_layers < 0 ? layers : moe_layers;
}

int Workload::micro_batches_per_step(const Layout& l) const {
  if (global_batch <= 0) return micro_batches;
  return std::max(1, global_batch / (micro_batch * std::max(1, l.dp())));
}

// Dense: everything whose gradient Megatron-Core reduces over the data-parallel group. Besides
// attention and the dense layers' MLPs that is each MoE layer's router and its shared experts
// (a SharedExpertMLP is an ordinary MLP module, not an expert parameter).
double Workload::derived_dense_params() const {
  if (dense_params > 0) return dense_params;
  const int moe = moe_layer_count();
  const int dense_mlp_layers = layers - moe;
  const double router = static_cast<double>(moe) * hidden * std::max(experts, 1);
  const double shared = static_cast<double>(moe) * mlp_params(*this, shared_expert_ffn_hidden);
  const double embeddings = (tied_embeddings ? 1.0 : 2.0) * vocab * hidden;
  return layers * layer_attention_params(*this) + dense_mlp_layers * mlp_params(*this, ffn_hidden) + router + shared + embeddings;
}

double Workload::derived_expert_params() const {
  if (expert_params > 0) return expert_params;
  return static_cast<double>(moe_layer_count()) * experts * mlp_params(*this, expert_ffn());
}

double Workload::active_params() const {
  const double routed = derived_expert_params();
  return derived_dense_params() + (experts > 1 ? routed * top_k / experts : routed);
}

void check_workload(const Workload& w, const Layout& l) {
  if (w.experts > 1 && w.experts % l.ep != 0) {
    throw InputError("workload has " + std::to_string(w.experts) + " experts, not divisible by EP " + std::to_string(l.ep) +
                     "; Megatron places experts/EP per rank");
  }
  if (w.experts <= 1 && l.ep > 1) {
    throw InputError("workload is dense (experts <= 1) but --ep is " + std::to_string(l.ep) + "; set experts in the workload or --ep 1");
  }
  if (w.seq_len % l.cp != 0) {
    throw InputError("seq_len " + std::to_string(w.seq_len) + " is not divisible by CP " + std::to_string(l.cp));
  }
  if (w.moe_layers > w.layers) {
    throw InputError("moe_layers " + std::to_string(w.moe_layers) + " exceeds layers " + std::to_string(w.layers));
  }
  // Megatron refuses a global batch that micro-batches of all DP ranks do not fill exactly.
  const long long per_pass = static_cast<long long>(w.micro_batch) * l.dp();
  if (w.global_batch > 0 && (w.global_batch % per_pass != 0)) {
    throw InputError("global batch " + std::to_string(w.global_batch) + " is not a multiple of micro-batch " +
                     std::to_string(w.micro_batch) + " * DP " + std::to_string(l.dp()) +
                     "; change the global batch, the micro-batch or the layout");
  }
}

std::vector<OpTraffic> step_traffic(const Workload& w, const Layout& l) {
  const double a = dtype_bytes(w.dtype), a_grad = dtype_bytes(w.grad_dtype);
  const double t = l.tp, c = l.cp, p = l.pp, e = l.ep, te = l.expert_tp();
  const double layers_per_rank = static_cast<double>(w.layers) / p;
  const double moe_per_rank = static_cast<double>(w.moe_layer_count()) / p;
  const double dense_mlp_per_rank = layers_per_rank - moe_per_rank;
  const double shared_per_rank = w.shared_expert_ffn_hidden > 0 ? moe_per_rank : 0.0;
  const double mb = w.micro_batches_per_step(l);
  // Activations of one micro-batch on one CP rank: b·(s/c)·h elements.
  const double act = static_cast<double>(w.micro_batch) * (w.seq_len / c) * w.hidden * a;
  std::vector<OpTraffic> out;
  auto add = [&out](Dim d, Op op, double bytes, double calls) {
    if (calls > 0 && bytes > 0) out.push_back({d, op, to_bytes(bytes), calls});
  };

  if (l.tp > 1) {
    // Per block (attention, dense MLP): fwd AG + RS, bwd RS + AG with sequence parallelism;
    // fwd AR + bwd AR without. MoE layers keep TP on the attention half only (§7), except for
    // their shared experts: Megatron-Core builds those as a dense MLP from column- and
    // row-parallel linears over the TP group, so they gather and reduce-scatter like one.
    const double blocks = layers_per_rank + dense_mlp_per_rank + shared_per_rank;
    if (w.sequence_parallel) {
      add(Dim::tp, Op::all_gather, act, 2 * blocks * mb);
      add(Dim::tp, Op::reduce_scatter, act, 2 * blocks * mb);
    } else {
      add(Dim::tp, Op::all_reduce, act, 2 * blocks * mb);
    }
  }
  if (l.cp > 1) {
    // Ring attention passes K and V of every chunk around the ring: the volume of an all-gather
    // of K,V over CP in forward, about twice that in backward.
    const double kv = 2.0 * w.micro_batch * w.seq_len * (w.kv_hidden / t) * a;
    add(Dim::cp, Op::all_gather, kv, 3 * layers_per_rank * mb);
  }
  if (l.pp > 1) {
    // One activation send forward and one gradient send backward per micro-batch per boundary;
    // with sequence parallelism each TP rank sends its 1/t slice.
    add(Dim::pp, Op::send_recv, act / t, 2 * mb);
  }
  if (l.ep > 1 && moe_per_rank > 0) {
    // Only MoE layers dispatch: dense first layers (DeepSeek's first_k_dense_replace, Megatron's
    // --moe-layer-freq) run their MLP locally, and shared experts see the rank's own tokens.
    // Tokens per rank T = b·s/(t·c); dispatch sends T·k·h (times the capacity factor).
    // Dispatch and combine, forward and backward: four all-to-alls per MoE layer.
    const double tokens = static_cast<double>(w.micro_batch) * w.seq_len / (t * c);
    add(Dim::ep, Op::all_to_all, tokens * w.top_k * w.capacity_factor * w.hidden * a, 4 * moe_per_rank * mb);
  }
  if (te > 1 && moe_per_rank > 0) {
    // After dispatch an all-gather over ETP of the received tokens, before combine a
    // reduce-scatter; the same pair again in backward.
    const double tokens = static_cast<double>(w.micro_batch) * w.seq_len / (t * c);
    const double gathered = te * tokens * w.top_k * w.capacity_factor * w.hidden * a;
    add(Dim::etp, Op::all_gather, gathered, 2 * moe_per_rank * mb);
    add(Dim::etp, Op::reduce_scatter, gathered, 2 * moe_per_rank * mb);
  }
  if (l.dp() * l.cp > 1) {
    // Dense gradients (shared experts and routers included) once per step over dp-cp; the
    // distributed optimizer reduce-scatters the gradients and all-gathers the updated
    // parameters instead.
    const double per_rank = w.derived_dense_params() / (t * p);
    if (w.distributed_optimizer) {
      add(Dim::dp, Op::reduce_scatter, per_rank * a_grad, 1);
      add(Dim::dp, Op::all_gather, per_rank * a, 1);
    } else {
      add(Dim::dp, Op::all_reduce, per_rank * a_grad, 1);
    }
  }
  if (l.edp() > 1 && w.moe_layer_count() > 0) {
    // Routed experts' gradients only: Megatron-Core reduces them over the expert-data-parallel group.
    const double per_rank = w.derived_expert_params() / (te * e * p);
    add(Dim::edp, Op::all_reduce, per_rank * a_grad, 1);
  }
  return out;
}

Workload default_workload(const Layout& layout) {
  Workload w;
  w.name = kDefaultWorkloadName;
  if (layout.ep > 1) w.experts = std::lcm(w.experts, layout.ep);
  if (w.seq_len % layout.cp != 0) w.seq_len += layout.cp - w.seq_len % layout.cp;
  return w;
}

}  // namespace meshbench::mapping
