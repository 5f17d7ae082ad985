// explore --measured on published runs (tests/data/published/megatron-bridge-training-throughput.json):
// one row taken as the measured run, written out as a Megatron-LM log; the fit meets its step and
// carries to the other rows of its model. The table of every row is perf_explore_measured's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "common/error.hpp"
#include "common/median.hpp"
#include "mapping/src/explore_measured.hpp"
#include "tests/unit/mapping/published_runs.hpp"

namespace meshbench::mapping {

namespace {

const PublishedRun& row(const std::vector<PublishedRun>& rows, const std::string& id) {
  for (const auto& r : rows) {
    if (r.id == id) return r;
  }
  throw std::runtime_error("no row " + id);
}

std::string log_file(const PublishedRun& r) {
  const std::string path = ::testing::TempDir() + r.id + ".log";
  std::ofstream(path) << as_megatron_log(r);
  return path;
}

ExploreOptions options_for(const std::string& log, const std::string& layout = "") {
  ExploreOptions o;
  o.measured = log;
  o.measured_layout = layout;
  return o;
}

}  // namespace

// The fit moves the efficiency until explore's estimate of the measured layout is the measured step.
TEST(ExploreMeasured, FitMeetsTheMeasuredStep) {
  const auto rows = published_runs();
  const PublishedRun& r = row(rows, "bridge-26.02-dgx-h100-gpt-oss-120b-bf16-64gpu");
  const MeasuredFit fit = fit_to_measured(r.workload, r.run, r.hardware, r.cluster, default_cost_params(r.cluster));
  EXPECT_DOUBLE_EQ(fit.measured_ms, r.run.step_ms);
  EXPECT_NEAR(fit.after_ms, fit.measured_ms, 1e-6 * fit.measured_ms);
  EXPECT_LT(fit.before_ms, fit.measured_ms);  // explore's default (50% of peak) is optimistic for this run
  EXPECT_LT(fit.efficiency_after, fit.efficiency_before);
  EXPECT_GT(fit.efficiency_after, kFitEfficiencyMin);
  EXPECT_DOUBLE_EQ(fit.overlap_after, fit.overlap_before);  // the efficiency alone explained it
  EXPECT_TRUE(fit.notes.empty() || !fit.fits);
}

// A step faster than any compute efficiency explains moves the hidden share of communication.
TEST(ExploreMeasured, TooFastAStepHidesCommunication) {
  const auto rows = published_runs();
  PublishedRun r = row(rows, "bridge-26.04-dgx-h100-qwen3-30b-a3b-fp8-16gpu");
  const MeasuredFit at_max = [&] {
    MeasuredRun probe = r.run;
    probe.settings.compute_efficiency = kFitEfficiencyMax;
    return fit_to_measured(r.workload, probe, r.hardware, r.cluster, default_cost_params(r.cluster));
  }();
  r.run.step_ms = 0.9 * at_max.before_ms;
  const MeasuredFit fit = fit_to_measured(r.workload, r.run, r.hardware, r.cluster, default_cost_params(r.cluster));
  EXPECT_DOUBLE_EQ(fit.efficiency_after, kFitEfficiencyMax);
  EXPECT_GT(fit.overlap_after, 0);
  EXPECT_NEAR(fit.after_ms, r.run.step_ms, 1e-6 * r.run.step_ms);
}

// One published row as the measured run predicts the other rows of its model and GPU better
// than explore's defaults: gpt-oss-120b on 64 H100, each of its 5 rows in turn; and over every
// model and GPU with two or more rows, the median error of all such predictions falls.
TEST(ExploreMeasured, PublishedRowFitImprovesTheOthers) {
  const auto rows = published_runs();
  std::vector<double> all_before, all_after;
  for (const auto& measured : rows) {
    const MeasuredFit fit =
        fit_to_measured(measured.workload, measured.run, measured.hardware, measured.cluster, default_cost_params(measured.cluster));
    std::vector<double> before, after;
    for (const auto& other : rows) {
      if (&other == &measured || other.model != measured.model || other.gpu != measured.gpu) continue;
      before.push_back(std::abs(std::log(predicted_step_ms(other, 0.5, 0.0) / other.run.step_ms)));
      after.push_back(std::abs(std::log(predicted_step_ms(other, fit.efficiency_after, fit.overlap_after) / other.run.step_ms)));
    }
    if (before.empty()) continue;
    all_before.insert(all_before.end(), before.begin(), before.end());
    all_after.insert(all_after.end(), after.begin(), after.end());
    if (measured.model == "gpt-oss-120b" && measured.gpu == "H100") {
      EXPECT_LT(median_of(after), median_of(before)) << measured.id;
      EXPECT_LT(median_of(after), 0.25) << measured.id;
    }
  }
  ASSERT_GT(all_before.size(), 50U);
  EXPECT_LT(median_of(all_after), median_of(all_before));
}

// The row written as a log reads back as the same measured run: layout, batch, precision, step.
TEST(ExploreMeasured, LogGivesTheLayoutAndJob) {
  const auto rows = published_runs();
  const PublishedRun& r = row(rows, "bridge-25.09-dgx-h100-qwen3-30b-a3b-fp8-16gpu");
  const MeasuredRun run = measured_run_of(options_for(log_file(r)), TrainingSettings{}, r.workload, r.cluster.slot_count());
  EXPECT_EQ(run.layout.layout, r.run.layout.layout);
  EXPECT_EQ(run.layout.vpp, 24);
  EXPECT_EQ(run.settings.micro_batch, 2);
  EXPECT_EQ(run.settings.global_batch, 512);
  EXPECT_EQ(run.settings.precision, "fp8");
  EXPECT_EQ(run.seq_len, 4096);
  EXPECT_DOUBLE_EQ(run.step_ms, r.run.step_ms);
  // The same layout given again is accepted.
  const MeasuredRun again =
      measured_run_of(options_for(log_file(r), "tp=1,pp=2,vpp=24,ep=8,etp=1"), TrainingSettings{}, r.workload, r.cluster.slot_count());
  EXPECT_EQ(again.layout.layout, run.layout.layout);
}

TEST(ExploreMeasured, ContradictionsAreRefused) {
  const auto rows = published_runs();
  const PublishedRun& r = row(rows, "bridge-25.09-dgx-h100-qwen3-30b-a3b-fp8-16gpu");
  auto error_of = [&](const ExploreOptions& o, int world, const Workload& w) {
    try {
      (void)measured_run_of(o, TrainingSettings{}, w, world);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string layout = error_of(options_for(log_file(r), "tp=2,pp=2,vpp=24,ep=8,etp=1"), 16, r.workload);
  EXPECT_NE(layout.find("states TP 1, --measured-layout gives 2"), std::string::npos) << layout;
  const std::string world = error_of(options_for(log_file(r)), 32, r.workload);
  EXPECT_NE(world.find("ran on 16 GPUs, this cluster has 32"), std::string::npos) << world;
  Workload other = r.workload;
  other.layers = 24;
  const std::string model = error_of(options_for(log_file(r)), 16, other);
  EXPECT_NE(model.find("trained 48 layers, --workload has 24"), std::string::npos) << model;
  // A log without an arguments block needs the layout given.
  const std::string path = ::testing::TempDir() + "no_arguments.log";
  std::ofstream(path) << " iteration 2/ 10 | elapsed time per iteration (ms): 100.0 |\n";
  const std::string unstated = error_of(options_for(path), 16, r.workload);
  EXPECT_NE(unstated.find("--measured-layout"), std::string::npos) << unstated;
  for (const std::string& e : {layout, world, model, unstated}) EXPECT_EQ(e.find('\n'), std::string::npos);
}

}  // namespace meshbench::mapping
