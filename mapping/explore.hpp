#pragma once
// `meshbench explore`: every valid TP/CP/PP/VPP/EP/ETP layout of a model on a cluster, with its
// memory per GPU, compute, pipeline bubble and communication at its placement, ranked by the
// estimated step time (docs/explore.md). Pure: no I/O.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mapping/candidates.hpp"
#include "mapping/cost_model.hpp"
#include "mapping/training.hpp"
#include "mapping/workload.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping {

// Which sizes to try; an empty list means every size the rules allow.
struct ExploreConstraints {
  std::vector<int> tp, cp, pp, vpp, ep, etp;
  int max_vpp = 0;          // when vpp is not given: 0 = up to one layer per chunk
  bool tp_in_node = true;   // TP and ETP groups inside one node (Megatron's advice)
  double headroom_gib = 0;  // memory kept free on top of the allowance
};

struct ExploreHardware {
  std::string gpu_model;
  double memory_gib = 0;
  double bf16_tflops = 0;
  double fp8_tflops = 0;
  double hbm_tbps = 0;  // 0 = unknown: expert GEMMs priced by FLOPs alone
  int gpus_per_node = 8;
};

// Communication of one step on a layout's placement, µs per dimension, and how it overlaps.
struct StepComm {
  std::string placement;  // the mapping priced: Megatron's order, or the planner's best
  bool planned = false;   // true when the planner searched placements for this layout
  std::array<double, kAllDims.size()> dim_us{};
  double exposed_us = 0, overlapped_us = 0;
};

struct LayoutEstimate {
  ExploreLayout layout;
  StageSplit split;
  MemoryEstimate memory;
  bool fits = false;
  int micro_batches = 0;
  double imbalance = 1;   // busiest EP rank's routed tokens over the mean
  double compute_us = 0;  // the busiest stage's micro-batches back to back
  double bubble_us = 0;
  StepComm comm;
  double step_us = 0;
  double tokens_per_s = 0;
  double mfu = 0;                              // model FLOPs per second over the cluster's dense peak
  std::optional<RankedCandidates> candidates;  // the planner's, for the best few (plan_top)
};

struct ExploreResult {
  std::vector<LayoutEstimate> ranked;           // layouts that fit, fastest first
  std::vector<LayoutEstimate> too_big;          // valid layouts that do not fit, smallest first
  std::map<std::string, int> rejected_by_rule;  // rule -> candidates that broke it first
  int candidates = 0;                           // size combinations looked at
  double model_flops_per_token = 0;             // forward + backward, without recompute
};

// Every layout for the model's world. `model` prices communication (its workload is the
// model's; its topology the cluster's); the best `plan_top` layouts get the planner's search
// for their placement. InputError when no candidate passes (message names each rule's count).
ExploreResult explore(const Workload& workload, const TrainingSettings& settings, const ExploreConstraints& constraints,
                      const ExploreHardware& hardware, const topology::ClusterTopology& topology, const CostModel& model, int plan_top);

// Megatron-LM's arguments for a layout: parallel sizes, uneven stages, sequence parallelism,
// the optimizer and recompute settings.
std::string megatron_layout_args(const LayoutEstimate& estimate, const TrainingSettings& settings);

}  // namespace meshbench::mapping
