// The layout search as three steps (explore_steps.hpp): generate the size combinations, filter
// them by the named rules, price what passes; rank by step time, then let the planner search
// placements for the best few (docs/explore.md, "How a layout is priced").
#include "mapping/explore.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "explore_steps.hpp"

namespace meshbench::mapping {

namespace {

// A size the user gave that divides nothing is a mistake, not an empty search.
void check_given_sizes(const ExploreConstraints& c, int world) {
  for (const auto& [name, sizes] :
       {std::pair<const char*, const std::vector<int>*>{"tp", &c.tp}, {"cp", &c.cp}, {"pp", &c.pp}, {"ep", &c.ep}, {"etp", &c.etp}}) {
    for (int size : *sizes) {
      if (world % size != 0) {
        throw InputError(std::string("--") + name + " " + std::to_string(size) + " does not divide the " + std::to_string(world) +
                         " slots; give sizes that divide the world");
      }
    }
  }
}

[[noreturn]] void throw_nothing_fits(const ExploreResult& result, const Workload& w, const topology::ClusterTopology& topology) {
  std::vector<std::string> rules;
  for (const auto& [rule, n] : result.rejected_by_rule) rules.push_back(rule + ": " + std::to_string(n));
  const bool gpus = topology.node(0).slots.empty() || topology.node(0).slots.front().kind == topology::SlotKind::gpu;
  std::string smallest;
  if (!result.too_big.empty()) {  // sorted smallest first: what the nearest miss needs, and where
    const StageMemory& m = result.too_big.front().memory.maximum;
    smallest = "; the smallest needs " + fixed(m.total() / kBytesPerGiB, 1) + " GiB on stage " + std::to_string(m.stage) + ", " +
               fixed(m.activations / kBytesPerGiB, 1) + " GiB of it activations";
  }
  throw InputError("no layout of " + std::to_string(topology.slot_count()) + (gpus ? " GPUs" : " slots") + " fits " +
                   (w.name.empty() ? "the model" : w.name) + " under the constraints (" + join(rules, "; ") + ")" + smallest +
                   "; relax a fixed size, add nodes or lower the micro-batch");
}

}  // namespace

ExploreResult explore(const Workload& w, const TrainingSettings& s, const ExploreConstraints& c, const ExploreHardware& hw,
                      const topology::ClusterTopology& topology, const CostModel& model, int plan_top) {
  const int world = topology.slot_count();
  check_given_sizes(c, world);
  ExploreResult result;
  StepPricer pricer(w, s, c, hw, model);
  result.model_flops_per_token = pricer.model_flops_per_token();
  const RuleInputs rule_inputs{w, s, c, hw.gpus_per_node};
  generate_layouts(world, w, c, [&](const ExploreLayout& layout) {
    ++result.candidates;
    if (const std::string_view rule = broken_rule(rule_inputs, layout); !rule.empty()) {
      ++result.rejected_by_rule[std::string(rule)];
      return;
    }
    LayoutEstimate e = pricer.size_up(layout);
    if (!e.fits) {
      ++result.rejected_by_rule["does not fit in GPU memory"];
      result.too_big.push_back(std::move(e));
      return;
    }
    pricer.price(e);
    result.ranked.push_back(std::move(e));
  });
  std::stable_sort(result.too_big.begin(), result.too_big.end(),
                   [](const LayoutEstimate& a, const LayoutEstimate& b) { return a.memory.maximum.total() < b.memory.maximum.total(); });
  if (result.ranked.empty()) throw_nothing_fits(result, w, topology);
  auto by_step = [](const LayoutEstimate& a, const LayoutEstimate& b) { return a.step_us < b.step_us; };
  std::stable_sort(result.ranked.begin(), result.ranked.end(), by_step);

  // The best few get the planner: every order, the topology-aware placements and the search.
  const int refine = std::min<int>(plan_top, static_cast<int>(result.ranked.size()));
  for (int i = 0; i < refine; ++i) {
    LayoutEstimate& e = result.ranked[static_cast<std::size_t>(i)];
    e.candidates = generate_candidates(e.layout.layout, topology, model, {.random_placements = 0, .with_groups = false});
    const Candidate& best = e.candidates->ranked.front();
    e.comm.placement = best.mapping.name;
    e.comm.planned = true;
    e.comm.dim_us = best.score.dim_us;
    pricer.finish(e);
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
