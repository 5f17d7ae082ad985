// The fit of explore's constants to one measured step: price the measured layout at the measured
// job's batch, then move the compute efficiency until the estimate meets the measurement; only
// when the efficiency reaches its ceiling does the hidden share of communication move. The step
// time falls monotonically in both, so bisection finds each.
#include "mapping/measured_fit.hpp"

#include "common/error.hpp"
#include "common/strings.hpp"
#include "explore_steps.hpp"

namespace meshbench::mapping {

namespace {

std::string layout_words(const ExploreLayout& e) {
  const Layout& l = e.layout;
  return "TP" + std::to_string(l.tp) + " CP" + std::to_string(l.cp) + " PP" + std::to_string(l.pp) + " VPP" + std::to_string(e.vpp) +
         " EP" + std::to_string(l.ep) + " ETP" + std::to_string(l.expert_tp());
}

// Step time, ms, of the measured layout under `s`.
struct Pricing {
  const Workload& w;
  const ExploreLayout& layout;
  const ExploreHardware& hw;
  const CostModel& model;
  ExploreConstraints constraints;

  LayoutEstimate estimate(const TrainingSettings& s) const {
    StepPricer pricer(w, s, constraints, hw, model);
    LayoutEstimate e = pricer.size_up(layout);
    pricer.price(e);
    return e;
  }
  double step_ms(const TrainingSettings& s) const { return estimate(s).step_us / 1000.0; }
};

// The value in [lo, hi] where step(value) meets `target`, step falling as value rises.
template <class Step>
double bisect(double lo, double hi, double target, Step step) {
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (step(mid) > target ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

}  // namespace

MeasuredFit fit_to_measured(const Workload& workload, const MeasuredRun& run, const ExploreHardware& hw,
                            const topology::ClusterTopology& topology, const CostParams& params) {
  Workload w = workload;
  if (run.seq_len > 0) w.seq_len = run.seq_len;
  const TrainingSettings& s0 = run.settings;
  const Workload step_workload = workload_for_step(w, s0);
  ExploreConstraints c;
  c.tp_in_node = false;
  const RuleInputs rules{step_workload, s0, c, hw.gpus_per_node};
  if (const std::string_view rule = broken_rule(rules, run.layout); !rule.empty()) {
    throw InputError("the measured layout " + layout_words(run.layout) + " of " + run.source + " breaks explore's rule '" +
                     std::string(rule) + "' for this model; check that the log and --workload describe the same model and job");
  }
  const CostModel model(topology, params, step_workload);
  const Pricing pricing{step_workload, run.layout, hw, model, c};

  MeasuredFit fit;
  fit.measured_ms = run.step_ms;
  fit.efficiency_before = s0.compute_efficiency;
  fit.overlap_before = s0.comm_overlap;
  const LayoutEstimate before = pricing.estimate(s0);
  fit.before_ms = before.step_us / 1000.0;
  fit.fits = before.fits;
  fit.memory_estimate_gib = before.memory.maximum.total() / kBytesPerGiB;
  if (!fit.fits) {
    fit.notes.push_back("explore's memory estimate for the measured layout is " + fixed(fit.memory_estimate_gib, 1) + " GiB, above the " +
                        fixed(hw.memory_gib, 0) + " GiB it ran in: the estimate is pessimistic for this job");
  }

  TrainingSettings s = s0;
  auto at_efficiency = [&](double eff) {
    s.compute_efficiency = eff;
    return pricing.step_ms(s);
  };
  auto at_overlap = [&](double share) {
    s.comm_overlap = share;
    return pricing.step_ms(s);
  };
  if (at_efficiency(kFitEfficiencyMin) < run.step_ms) {
    s.compute_efficiency = kFitEfficiencyMin;
    fit.notes.push_back("the measured step is slower than the model explains at " + fixed(100 * kFitEfficiencyMin, 0) +
                        "% compute efficiency: something the model does not price (data loading, a slow node) takes the rest");
  } else if (at_efficiency(kFitEfficiencyMax) > run.step_ms) {
    s.compute_efficiency = kFitEfficiencyMax;
    if (at_overlap(1.0) > run.step_ms) {
      s.comm_overlap = 1.0;
      fit.notes.push_back("the measured step is faster than the model explains even with " + fixed(100 * kFitEfficiencyMax, 0) +
                          "% compute efficiency and all communication hidden: check the layout, precision and batch the log states");
    } else {
      s.comm_overlap = bisect(s0.comm_overlap, 1.0, run.step_ms, at_overlap);
    }
  } else {
    s.compute_efficiency = bisect(kFitEfficiencyMin, kFitEfficiencyMax, run.step_ms, at_efficiency);
  }
  fit.efficiency_after = s.compute_efficiency;
  fit.overlap_after = s.comm_overlap;
  fit.after_ms = pricing.step_ms(s);
  return fit;
}

}  // namespace meshbench::mapping
