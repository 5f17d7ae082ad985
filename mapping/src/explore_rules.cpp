// explore's second step: Megatron-Core's and the model's rules, one predicate each, in the order
// a layout is checked (it is counted against the first it breaks). Memory is priced, not a rule
// here: a layout that breaks none is sized up and, if too big, listed as such.
#include "common/error.hpp"
#include "explore_steps.hpp"

namespace meshbench::mapping {

namespace {

using In = RuleInputs;
using EL = ExploreLayout;

bool beyond_node(const In& in, const EL& e) {
  const Layout& l = e.layout;
  return in.constraints.tp_in_node && (l.tp > in.gpus_per_node || l.expert_tp() > in.gpus_per_node);
}
bool heads_split(const In& in, const EL& e) {
  const Workload& w = in.workload;
  return w.heads > 0 && (w.heads % e.layout.tp != 0 || w.kv_heads % e.layout.tp != 0);
}
bool width_split(const In& in, const EL& e) { return in.workload.hidden % e.layout.tp != 0 || in.workload.ffn_hidden % e.layout.tp != 0; }
bool experts_on_dense(const In& in, const EL& e) {
  return in.workload.experts <= 1 && (e.layout.ep > 1 || e.layout.expert_tp() != e.layout.tp);
}
bool experts_split(const In& in, const EL& e) { return in.workload.experts > 1 && in.workload.experts % e.layout.ep != 0; }
bool expert_width_split(const In& in, const EL& e) {
  return in.workload.experts > 1 && in.workload.expert_ffn() % e.layout.expert_tp() != 0;
}
bool sequence_over_cp(const In& in, const EL& e) { return e.layout.cp > 1 && in.workload.seq_len % (2 * e.layout.cp) != 0; }
bool sequence_over_tp(const In& in, const EL& e) {
  const Layout& l = e.layout;
  return in.settings.sequence_parallel && l.tp > 1 && (in.workload.seq_len / l.cp) % l.tp != 0;
}
bool vpp_without_pp(const In&, const EL& e) { return e.vpp > 1 && e.layout.pp == 1; }
bool layers_split(const In& in, const EL& e) { return !split_layers(in.workload.layers, e.layout.pp, e.vpp); }
long long sequences_per_pass(const In& in, const EL& e) { return static_cast<long long>(in.settings.micro_batch) * e.layout.dp(); }
bool batch_split(const In& in, const EL& e) { return in.settings.global_batch % sequences_per_pass(in, e) != 0; }
bool interleave_split(const In& in, const EL& e) {
  return e.vpp > 1 && (in.settings.global_batch / sequences_per_pass(in, e)) % e.layout.pp != 0;
}
bool order_rules(const In&, const EL& e) {
  try {
    validate(e.layout);
  } catch (const InputError&) {
    return true;
  }
  return false;
}

}  // namespace

const std::vector<LayoutRule>& layout_rules() {
  static const std::vector<LayoutRule> rules{
      {"TP or ETP beyond a node (--tp-across-nodes lifts it)", beyond_node},
      {"attention heads (or K/V heads) not divisible by TP", heads_split},
      {"hidden or FFN width not divisible by TP", width_split},
      {"EP or ETP on a dense model", experts_on_dense},
      {"experts not divisible by EP", experts_split},
      {"expert width not divisible by ETP", expert_width_split},
      {"sequence not divisible by 2×CP (load-balanced context parallelism)", sequence_over_cp},
      {"sequence shard not divisible by TP (sequence parallelism)", sequence_over_tp},
      {"virtual stages without PP", vpp_without_pp},
      {"layers do not split over PP×VPP", layers_split},
      {"global batch not a multiple of micro-batch×DP", batch_split},
      {"micro-batches not a multiple of PP (interleaved schedule)", interleave_split},
      {"Megatron's order rules", order_rules},
  };
  return rules;
}

std::string_view broken_rule(const RuleInputs& in, const ExploreLayout& layout) {
  for (const LayoutRule& rule : layout_rules()) {
    if (rule.breaks(in, layout)) return rule.name;
  }
  return {};
}

}  // namespace meshbench::mapping
