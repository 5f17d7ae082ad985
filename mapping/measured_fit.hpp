#pragma once
// "Measure one layout, rank the rest" (docs/explore.md, "A measured run"): the step time a
// training log measured on one layout corrects explore's compute efficiency (and, when the
// efficiency alone cannot explain it, the share of communication hidden behind compute) before
// explore ranks the other layouts. Pure: no I/O.
#include <string>
#include <vector>

#include "mapping/cost_params.hpp"
#include "mapping/explore.hpp"

namespace meshbench::mapping {

// One measured step: the layout it ran on and the job's settings (batch, precision, recompute).
struct MeasuredRun {
  ExploreLayout layout;       // layout.layout.world set
  TrainingSettings settings;  // the constants to fit start from these
  int seq_len = 0;            // 0: the workload's
  double step_ms = 0;
  std::string source;  // the log, for messages
};

struct MeasuredFit {
  double measured_ms = 0, before_ms = 0, after_ms = 0;
  double efficiency_before = 0, efficiency_after = 0;
  double overlap_before = 0, overlap_after = 0;
  double memory_estimate_gib = 0;  // explore's busiest GPU for the measured layout
  bool fits = true;                // whether explore's memory estimate admits the layout that ran
  std::vector<std::string> notes;  // what the fit could not explain
};

// The most and least compute efficiency a fit may settle on: past them the difference is not
// compute's (docs/explore.md).
inline constexpr double kFitEfficiencyMax = 0.95, kFitEfficiencyMin = 0.02;

// explore's step time, ms, for the run's layout and settings as they are (no fit); InputError as
// fit_to_measured.
double measured_layout_step_ms(const Workload& workload, const MeasuredRun& run, const ExploreHardware& hardware,
                               const topology::ClusterTopology& topology, const CostParams& params);

// InputError when the measured layout breaks one of explore's rules for this model.
MeasuredFit fit_to_measured(const Workload& workload, const MeasuredRun& run, const ExploreHardware& hardware,
                            const topology::ClusterTopology& topology, const CostParams& params);

}  // namespace meshbench::mapping
