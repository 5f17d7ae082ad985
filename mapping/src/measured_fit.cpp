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

// The measured layout at the measured job's batch, its communication priced once: the constants
// the fit moves (compute efficiency, hidden share) do not change what the collectives cost.
class MeasuredLayout {
 public:
  MeasuredLayout(const Workload& workload, const MeasuredRun& run, const ExploreHardware& hw, const topology::ClusterTopology& topology,
                 const CostParams& params)
      : w_(step_workload(workload, run)), layout_(run.layout), hw_(hw), model_(topology, params, w_) {
    constraints_.tp_in_node = false;
    const RuleInputs rules{w_, run.settings, constraints_, hw.gpus_per_node};
    if (const std::string_view rule = broken_rule(rules, layout_); !rule.empty()) {
      throw InputError("the measured layout " + layout_words(layout_) + " of " + run.source + " breaks explore's rule '" +
                       std::string(rule) + "' for this model; check that the log and --workload describe the same model and job");
    }
    StepPricer pricer(w_, run.settings, constraints_, hw_, model_);
    LayoutEstimate e = pricer.size_up(layout_);
    pricer.price(e);
    comm_ = e.comm;
  }

  LayoutEstimate estimate(const TrainingSettings& s) const {
    StepPricer pricer(w_, s, constraints_, hw_, model_);
    LayoutEstimate e = pricer.size_up(layout_);
    e.comm = comm_;
    pricer.finish(e);
    return e;
  }
  double step_ms(const TrainingSettings& s) const { return estimate(s).step_us / 1000.0; }

 private:
  static Workload step_workload(Workload w, const MeasuredRun& run) {
    if (run.seq_len > 0) w.seq_len = run.seq_len;
    return workload_for_step(std::move(w), run.settings);
  }

  Workload w_;
  ExploreLayout layout_;
  const ExploreHardware& hw_;
  CostModel model_;
  ExploreConstraints constraints_;
  StepComm comm_;
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

double measured_layout_step_ms(const Workload& workload, const MeasuredRun& run, const ExploreHardware& hw,
                               const topology::ClusterTopology& topology, const CostParams& params) {
  return MeasuredLayout(workload, run, hw, topology, params).step_ms(run.settings);
}

MeasuredFit fit_to_measured(const Workload& workload, const MeasuredRun& run, const ExploreHardware& hw,
                            const topology::ClusterTopology& topology, const CostParams& params) {
  const TrainingSettings& s0 = run.settings;
  const MeasuredLayout pricing(workload, run, hw, topology, params);

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
