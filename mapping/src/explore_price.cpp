// explore's third step: a layout's memory per GPU (training.hpp), the busiest stage's compute, the
// pipeline bubble and the communication of its shape at Megatron's order (docs/explore.md, "How a
// layout is priced").
#include <algorithm>
#include <numeric>

#include "explore_steps.hpp"

namespace meshbench::mapping {

namespace {

// Memory-bound kernels reach about this share of the HBM bandwidth (docs/explore.md).
constexpr double kHbmEfficiency = 0.7;

// One micro-batch's time on one GPU of the busiest stage, µs: forward, backward and what
// recompute repeats. Dense matrices run at the compute peak × efficiency; each local expert's
// GEMMs take the longer of their FLOPs at that rate and their bytes at the HBM's (few tokens
// per expert make them memory-bound), with the busiest EP rank's tokens.
double stage_time_per_micro_batch(const Workload& w, const ExploreLayout& el, const StageSplit& split, const TrainingSettings& s,
                                  double imbalance, double flops_per_us, double core_flops_per_us, double bytes_per_us) {
  const Layout& l = el.layout;
  const double passes = s.recompute == Recompute::full ? 4.0 : 3.0;
  const double tokens = static_cast<double>(s.micro_batch) * w.seq_len / (static_cast<double>(l.tp) * l.cp);  // this GPU's share
  const double attention_core = 2.0 * w.seq_len * static_cast<double>(w.hidden) * w.full_attention_share();   // per token, whatever CP
  const double extra_core = s.recompute == Recompute::selective ? attention_core : 0.0;                       // the core recomputed once
  Workload no_routed = w;
  no_routed.top_k = 0;
  const double local_experts = w.experts > 1 ? static_cast<double>(w.experts) / l.ep : 0.0;
  const double matrix = (w.gated_mlp ? 3.0 : 2.0) * w.expert_ffn() / l.expert_tp();  // one expert's width on this GPU
  auto expert_us = [&] {
    if (local_experts <= 0) return 0.0;
    const double per_expert = tokens * w.top_k * w.capacity_factor * l.expert_tp() * l.ep / w.experts * imbalance;
    const double flops = 2.0 * per_expert * w.hidden * matrix;
    const double bytes = 2.0 * w.hidden * matrix + 2.0 * per_expert * (2.0 * w.hidden + matrix);
    return local_experts * std::max(flops / flops_per_us, bytes_per_us > 0 ? bytes / bytes_per_us : 0.0);
  };
  auto layer_us = [&](bool moe) {
    const double dense = (moe ? layer_forward_flops(no_routed, true) : layer_forward_flops(w, false)) - attention_core;
    const double forward = tokens * dense / flops_per_us + tokens * attention_core / core_flops_per_us + (moe ? expert_us() : 0.0);
    return passes * forward + tokens * extra_core / core_flops_per_us;
  };
  // A layer's time depends only on its kind: price each kind once, then lay them on the stages.
  const double dense_layer_us = layer_us(false), moe_layer_us = layer_us(true);
  std::vector<double> per_stage(l.pp, 0.0);
  const auto layers_of = split.layers_by_stage();
  for (int r = 0; r < l.pp; ++r) {
    for (int i : layers_of[r]) per_stage[r] += is_moe_layer(w, i) ? moe_layer_us : dense_layer_us;
  }
  const double output = 3.0 * tokens * 2.0 * static_cast<double>(w.vocab) * w.hidden / flops_per_us;  // logits, forward and backward
  per_stage.back() +=
      output + w.mtp_layers * ((is_moe_layer(w, w.layers - 1) ? moe_layer_us : dense_layer_us) + output);  // MTP: the last layer's kind
  return *std::max_element(per_stage.begin(), per_stage.end());
}

}  // namespace

StepPricer::StepPricer(const Workload& w, const TrainingSettings& s, const ExploreConstraints& c, const ExploreHardware& hw,
                       const CostModel& model)
    : workload_(w), settings_(s), model_(model) {
  peak_tflops_ = s.precision == "fp8" && hw.fp8_tflops > 0 ? hw.fp8_tflops : hw.bf16_tflops;
  flops_per_us_ = peak_tflops_ * 1e6 * s.compute_efficiency;
  core_flops_per_us_ = hw.bf16_tflops * 1e6 * s.compute_efficiency;  // flash attention runs in bf16
  bytes_per_us_ = hw.hbm_tbps * 1e6 * kHbmEfficiency;
  budget_bytes_ = (hw.memory_gib - c.headroom_gib) * kBytesPerGiB;
  double forward = 2.0 * static_cast<double>(w.vocab) * w.hidden;
  for (int i = 0; i < w.layers; ++i) forward += layer_forward_flops(w, is_moe_layer(w, i));
  model_flops_per_token_ = 3.0 * forward;
}

LayoutEstimate StepPricer::size_up(const ExploreLayout& layout) const {
  const Layout& l = layout.layout;
  LayoutEstimate e;
  e.layout = layout;
  e.split = *split_layers(workload_.layers, l.pp, layout.vpp);
  e.micro_batches = settings_.global_batch / (settings_.micro_batch * l.dp());
  e.imbalance = routing_imbalance(l.ep, settings_.routing_skew);
  e.memory = estimate_memory(workload_, e.layout, e.split, settings_);
  e.fits = e.memory.maximum.total() <= budget_bytes_;
  return e;
}

void StepPricer::price(LayoutEstimate& e) {
  const Layout& l = e.layout.layout;
  const std::tuple<int, int, int, int, int> shape{l.tp, l.cp, l.pp, l.ep, l.expert_tp()};
  auto it = comm_by_shape_.find(shape);
  if (it == comm_by_shape_.end()) {
    StepComm comm;
    comm.placement = std::string("megatron ") + l.order;
    std::vector<int> identity(static_cast<std::size_t>(l.world));
    std::iota(identity.begin(), identity.end(), 0);
    comm.dim_us = model_.score(l, flat_rank_groups(l), identity, scratch_, true).dim_us;
    it = comm_by_shape_.emplace(shape, std::move(comm)).first;
  }
  e.comm = it->second;
  finish(e);
}

void StepPricer::finish(LayoutEstimate& e) const {
  const Workload& w = workload_;
  const TrainingSettings& s = settings_;
  const Layout& l = e.layout.layout;
  const double t_mb = stage_time_per_micro_batch(w, e.layout, e.split, s, e.imbalance, flops_per_us_, core_flops_per_us_, bytes_per_us_);
  e.compute_us = e.micro_batches * t_mb;
  e.bubble_us = (l.pp - 1) / static_cast<double>(e.layout.vpp) * t_mb;
  auto at = [&](Dim d) { return e.comm.dim_us[static_cast<std::size_t>(d)]; };
  // Full recompute repeats the forward's collectives: half again as many for TP, CP, EP, ETP.
  const double again = s.recompute == Recompute::full ? 1.5 : 1.0;
  const double tp = again * at(Dim::tp), cp = again * at(Dim::cp), etp = again * at(Dim::etp);
  const double ep = again * at(Dim::ep) * e.imbalance;
  const double pp = at(Dim::pp) * e.layout.vpp;  // each virtual stage boundary sends
  const double grads = at(Dim::dp) + at(Dim::edp);
  // Gradient reduction overlaps the last micro-batch's backward (and the parameter gather the
  // next step's first forward): one micro-batch's time hides it.
  const double grads_exposed = std::max(0.0, grads - t_mb);
  const double ep_exposed = s.ep_overlap ? std::max(0.0, ep - 0.5 * e.compute_us) : ep;
  const double exposed = tp + cp + etp + pp + ep_exposed + grads_exposed;
  e.comm.exposed_us = exposed * (1.0 - s.comm_overlap);
  e.comm.overlapped_us = (grads - grads_exposed) + (ep - ep_exposed) + exposed * s.comm_overlap;
  e.step_us = e.compute_us + e.bubble_us + e.comm.exposed_us;
  const double tokens = static_cast<double>(s.global_batch) * w.seq_len;
  e.tokens_per_s = tokens / (e.step_us * 1e-6);
  e.mfu = e.tokens_per_s * model_flops_per_token_ / (l.world * peak_tflops_ * 1e12);
}

}  // namespace meshbench::mapping
