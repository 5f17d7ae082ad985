#pragma once
// explore's three steps (docs/explore.md, "How a layout is priced"): generate the size
// combinations, filter them by Megatron-Core's and the model's named rules, price what passes.
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "mapping/explore.hpp"

namespace meshbench::mapping {

// Calls `visit` with every TP/ETP/CP/PP/EP/VPP combination the constraints allow whose products
// divide the world, in the order explore reports ties (TP outermost, VPP innermost). Sizes whose
// products do not divide the world are not layouts: never visited. Visited one at a time, not
// gathered, because a large cluster has hundreds of thousands.
void generate_layouts(int world, const Workload& workload, const ExploreConstraints& constraints,
                      const std::function<void(const ExploreLayout&)>& visit);

// What the rules read besides the layout.
struct RuleInputs {
  const Workload& workload;
  const TrainingSettings& settings;
  const ExploreConstraints& constraints;
  int gpus_per_node = 8;
};

// A rule a layout must keep; `breaks` is true when the layout breaks it.
struct LayoutRule {
  std::string_view name;
  bool (*breaks)(const RuleInputs& in, const ExploreLayout& layout);
};

// The rules in the order they are applied: a layout is counted against the first it breaks.
const std::vector<LayoutRule>& layout_rules();

// The name of the first rule the layout breaks; empty when it keeps them all.
std::string_view broken_rule(const RuleInputs& in, const ExploreLayout& layout);

// Prices layouts for one model, job and cluster: memory per GPU, compute, bubble and the
// communication of each distinct shape (one cost-model call per TP/CP/PP/EP/ETP shape).
class StepPricer {
 public:
  StepPricer(const Workload& workload, const TrainingSettings& settings, const ExploreConstraints& constraints,
             const ExploreHardware& hardware, const CostModel& model);

  // Forward and backward FLOPs of every layer and the logits, per token, without recompute.
  double model_flops_per_token() const { return model_flops_per_token_; }
  // Memory, split, micro-batches and routing imbalance; `fits` says whether it fits the GPU.
  LayoutEstimate size_up(const ExploreLayout& layout) const;
  // Communication at Megatron's own order, then the time terms.
  void price(LayoutEstimate& estimate);
  // The time terms from the estimate's communication (after the planner replaced it, too).
  void finish(LayoutEstimate& estimate) const;

 private:
  const Workload& workload_;
  const TrainingSettings& settings_;
  const CostModel& model_;
  double peak_tflops_ = 0, flops_per_us_ = 0, core_flops_per_us_ = 0, bytes_per_us_ = 0, budget_bytes_ = 0;
  double model_flops_per_token_ = 0;
  std::map<std::tuple<int, int, int, int, int>, StepComm> comm_by_shape_;
  CostScratch scratch_;
};

}  // namespace meshbench::mapping
