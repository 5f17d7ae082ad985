// The layout search: enumerate sizes, apply Megatron-Core's and the model's rules, estimate
// memory (training.hpp), compute, bubble and communication, rank by step time, then let the
// planner search placements for the best few (docs/explore.md, "How a layout is priced").
#include "mapping/explore.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "common/error.hpp"
#include "common/strings.hpp"

namespace meshbench::mapping {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; d <= n; ++d) {
    if (n % d == 0) out.push_back(d);
  }
  return out;
}

std::vector<int> or_all(const std::vector<int>& given, const std::vector<int>& all) { return given.empty() ? all : given; }

// The first rule a size combination breaks, or "" when it passes them all (memory aside).
std::string broken_rule(const Workload& w, const TrainingSettings& s, const ExploreConstraints& c, int gpus_per_node, const Layout& l,
                        int vpp) {
  const int world = l.world;
  if (world % (1LL * l.tp * l.cp * l.pp) != 0) return "TP×CP×PP does not divide the world";
  if (world % (1LL * l.expert_tp() * l.ep * l.pp) != 0) return "ETP×EP×PP does not divide the world";
  if (c.tp_in_node && (l.tp > gpus_per_node || l.expert_tp() > gpus_per_node))
    return "TP or ETP beyond a node (--tp-across-nodes lifts it)";
  if (w.heads > 0 && (w.heads % l.tp != 0 || w.kv_heads % l.tp != 0)) return "attention heads (or K/V heads) not divisible by TP";
  if (w.hidden % l.tp != 0 || w.ffn_hidden % l.tp != 0) return "hidden or FFN width not divisible by TP";
  if (w.experts <= 1 && (l.ep > 1 || l.expert_tp() != l.tp)) return "EP or ETP on a dense model";
  if (w.experts > 1 && w.experts % l.ep != 0) return "experts not divisible by EP";
  if (w.experts > 1 && w.expert_ffn() % l.expert_tp() != 0) return "expert width not divisible by ETP";
  if (l.cp > 1 && w.seq_len % (2 * l.cp) != 0) return "sequence not divisible by 2×CP (load-balanced context parallelism)";
  if (s.sequence_parallel && l.tp > 1 && (w.seq_len / l.cp) % l.tp != 0) return "sequence shard not divisible by TP (sequence parallelism)";
  if (vpp > 1 && l.pp == 1) return "virtual stages without PP";
  if (!split_layers(w.layers, l.pp, vpp)) return "layers do not split over PP×VPP";
  const long long per_pass = static_cast<long long>(s.micro_batch) * l.dp();
  if (s.global_batch % per_pass != 0) return "global batch not a multiple of micro-batch×DP";
  const int micro_batches = static_cast<int>(s.global_batch / per_pass);
  if (vpp > 1 && micro_batches % l.pp != 0) return "micro-batches not a multiple of PP (interleaved schedule)";
  try {
    validate(l);
  } catch (const InputError&) {
    return "Megatron's order rules";
  }
  return "";
}

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
  const double attention_core = 2.0 * w.seq_len * static_cast<double>(w.hidden);                              // per token, whatever CP
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
    const double dense = (moe ? layer_forward_flops(no_routed, true) : layer_forward_flops(w, false)) - 2.0 * w.seq_len * w.hidden;
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

using ShapeKey = std::tuple<int, int, int, int, int>;

}  // namespace

ExploreResult explore(const Workload& w, const TrainingSettings& s, const ExploreConstraints& c, const ExploreHardware& hw,
                      const topology::ClusterTopology& topology, const CostModel& model, int plan_top) {
  const int world = topology.slot_count();
  const std::vector<int> all = divisors(world);
  // Virtual stages: the user's, or every count that leaves each chunk at least one layer.
  auto vpps_for = [&](int pp) {
    if (!c.vpp.empty()) {
      if (pp > 1) return c.vpp;
      return std::find(c.vpp.begin(), c.vpp.end(), 1) != c.vpp.end() ? std::vector<int>{1} : std::vector<int>{};
    }
    std::vector<int> v{1};
    const int most = c.max_vpp > 0 ? c.max_vpp : w.layers / pp;
    for (int n = 2; pp > 1 && n <= most; ++n) v.push_back(n);
    return v;
  };
  const double peak_tflops = s.precision == "fp8" && hw.fp8_tflops > 0 ? hw.fp8_tflops : hw.bf16_tflops;
  const double flops_per_us = peak_tflops * 1e6 * s.compute_efficiency;
  const double core_flops_per_us = hw.bf16_tflops * 1e6 * s.compute_efficiency;  // flash attention runs in bf16
  const double bytes_per_us = hw.hbm_tbps * 1e6 * kHbmEfficiency;
  const double budget = (hw.memory_gib - c.headroom_gib) * kGiB;

  ExploreResult result;
  // Model FLOPs per token (MFU's numerator): forward and backward of every layer and the logits.
  {
    double forward = 2.0 * static_cast<double>(w.vocab) * w.hidden;
    for (int i = 0; i < w.layers; ++i) forward += layer_forward_flops(w, is_moe_layer(w, i));
    result.model_flops_per_token = 3.0 * forward;
  }

  std::map<ShapeKey, StepComm> priced;
  CostScratch scratch;
  auto price = [&](const Layout& l) -> const StepComm& {
    const ShapeKey key{l.tp, l.cp, l.pp, l.ep, l.expert_tp()};
    auto it = priced.find(key);
    if (it != priced.end()) return it->second;
    StepComm comm;
    comm.placement = std::string("megatron ") + l.order;
    std::vector<int> identity(static_cast<std::size_t>(world));
    std::iota(identity.begin(), identity.end(), 0);
    const Score score = model.score(l, flat_rank_groups(l), identity, scratch, true);
    comm.dim_us = score.dim_us;
    return priced.emplace(key, std::move(comm)).first->second;
  };

  auto finish = [&](LayoutEstimate& e) {
    const Layout& l = e.layout.layout;
    const double t_mb = stage_time_per_micro_batch(w, e.layout, e.split, s, e.imbalance, flops_per_us, core_flops_per_us, bytes_per_us);
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
    e.comm.exposed_us = tp + cp + etp + pp + ep_exposed + grads_exposed;
    e.comm.overlapped_us = (grads - grads_exposed) + (ep - ep_exposed);
    e.step_us = e.compute_us + e.bubble_us + e.comm.exposed_us;
    const double tokens = static_cast<double>(s.global_batch) * w.seq_len;
    e.tokens_per_s = tokens / (e.step_us * 1e-6);
    e.mfu = e.tokens_per_s * result.model_flops_per_token / (world * peak_tflops * 1e12);
  };

  const bool dense = w.experts <= 1;
  for (const auto& [name, sizes] :
       {std::pair<const char*, const std::vector<int>*>{"tp", &c.tp}, {"cp", &c.cp}, {"pp", &c.pp}, {"ep", &c.ep}, {"etp", &c.etp}}) {
    for (int size : *sizes) {
      if (world % size != 0) {
        throw InputError(std::string("--") + name + " " + std::to_string(size) + " does not divide the " + std::to_string(world) +
                         " slots; give sizes that divide the world");
      }
    }
  }
  for (int tp : or_all(c.tp, all)) {
    for (int etp : dense ? std::vector<int>{tp} : or_all(c.etp, all)) {
      for (int cp : or_all(c.cp, all)) {
        for (int pp : or_all(c.pp, all)) {
          // Sizes whose products do not divide the world are not layouts: not counted (a size
          // the user gave that divides nothing was refused before the search).
          if (world % (1LL * tp * cp * pp) != 0 || world % (1LL * etp * pp) != 0) continue;
          for (int ep : dense ? std::vector<int>{1} : or_all(c.ep, all)) {
            if (world % (1LL * etp * ep * pp) != 0) continue;
            for (int vpp : vpps_for(pp)) {
              ++result.candidates;
              Layout l;
              l.world = world;
              l.tp = tp;
              l.cp = cp;
              l.pp = pp;
              l.ep = ep;
              l.etp = etp;
              if (const std::string rule = broken_rule(w, s, c, hw.gpus_per_node, l, vpp); !rule.empty()) {
                ++result.rejected_by_rule[rule];
                continue;
              }
              LayoutEstimate e;
              e.layout = {l, vpp};
              e.split = *split_layers(w.layers, pp, vpp);
              e.micro_batches = s.global_batch / (s.micro_batch * l.dp());
              e.imbalance = routing_imbalance(ep, s.routing_skew);
              e.memory = estimate_memory(w, e.layout, e.split, s);
              e.fits = e.memory.maximum.total() <= budget;
              if (!e.fits) {
                ++result.rejected_by_rule["does not fit in GPU memory"];
                result.too_big.push_back(std::move(e));
                continue;
              }
              e.comm = price(l);
              finish(e);
              result.ranked.push_back(std::move(e));
            }
          }
        }
      }
    }
  }
  if (result.ranked.empty()) {
    std::vector<std::string> rules;
    for (const auto& [rule, n] : result.rejected_by_rule) rules.push_back(rule + ": " + std::to_string(n));
    const bool gpus = topology.node(0).slots.empty() || topology.node(0).slots.front().kind == topology::SlotKind::gpu;
    throw InputError("no layout of " + std::to_string(world) + (gpus ? " GPUs" : " slots") + " fits " +
                     (w.name.empty() ? "the model" : w.name) + " under the constraints (" + join(rules, "; ") +
                     "); relax a fixed size, add nodes or lower the micro-batch");
  }
  auto by_step = [](const LayoutEstimate& a, const LayoutEstimate& b) { return a.step_us < b.step_us; };
  std::stable_sort(result.ranked.begin(), result.ranked.end(), by_step);
  std::stable_sort(result.too_big.begin(), result.too_big.end(),
                   [](const LayoutEstimate& a, const LayoutEstimate& b) { return a.memory.maximum.total() < b.memory.maximum.total(); });

  // The best few get the planner: every order, the topology-aware placements and the search.
  const int refine = std::min<int>(plan_top, static_cast<int>(result.ranked.size()));
  for (int i = 0; i < refine; ++i) {
    LayoutEstimate& e = result.ranked[static_cast<std::size_t>(i)];
    e.candidates = generate_candidates(e.layout.layout, topology, model, {.random_placements = 0, .with_groups = false});
    const Candidate& best = e.candidates->ranked.front();
    e.comm.placement = best.mapping.name;
    e.comm.planned = true;
    e.comm.dim_us = best.score.dim_us;
    finish(e);
  }
  std::stable_sort(result.ranked.begin(), result.ranked.begin() + refine, by_step);
  return result;
}

std::string megatron_layout_args(const LayoutEstimate& e, const TrainingSettings& s) {
  const Layout& l = e.layout.layout;
  std::string out = "--tensor-model-parallel-size " + std::to_string(l.tp) + " --pipeline-model-parallel-size " + std::to_string(l.pp);
  if (e.layout.vpp > 1) out += " --virtual-pipeline-model-parallel-size " + std::to_string(e.layout.vpp);
  if (!e.split.even) {
    out += " --decoder-first-pipeline-num-layers " + std::to_string(e.split.first_chunk()) + " --decoder-last-pipeline-num-layers " +
           std::to_string(e.split.last_chunk());
  }
  if (l.cp > 1) out += " --context-parallel-size " + std::to_string(l.cp);
  if (l.ep > 1) out += " --expert-model-parallel-size " + std::to_string(l.ep);
  if (l.ep > 1 || l.expert_tp() != l.tp) out += " --expert-tensor-parallel-size " + std::to_string(l.expert_tp());
  if (s.sequence_parallel && l.tp > 1) out += " --sequence-parallel";
  if (s.distributed_optimizer) out += " --use-distributed-optimizer";
  if (s.precision_aware_optimizer) out += " --use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16";
  if (s.recompute != Recompute::none) {
    out += " --recompute-granularity " + to_string(s.recompute);
    if (s.recompute == Recompute::full) out += " --recompute-method uniform --recompute-num-layers 1";
    if (s.recompute == Recompute::selective) out += " --recompute-modules core_attn layernorm moe_act";
  }
  out += " --micro-batch-size " + std::to_string(s.micro_batch) + " --global-batch-size " + std::to_string(s.global_batch);
  return out;
}

}  // namespace meshbench::mapping
