#pragma once
// How well a cost model predicted what a run measured, per point, per dimension and per
// mapping: relative errors, the rank correlation over mappings and the regret of trusting the
// model's pick. Two predictors side by side: the plan's model without calibration, and the
// calibrated one when a calibration is at hand (docs/report.md, "Prediction accuracy").
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/curves.hpp"
#include "analysis/report/ranking.hpp"
#include "mapping/cost_params.hpp"
#include "mapping/workload.hpp"
#include "results/point_key.hpp"
#include "results/reader.hpp"
#include "topology/cluster.hpp"

namespace meshbench::analysis {

// Point sizes from which a point counts as bandwidth-bound in the summaries.
inline constexpr std::uint64_t kLargePointBytes = 64 * 1024;

// Relative errors |predicted − measured| / measured: their count, median (the mean of the two
// middle values for an even count) and p90 (nearest rank: the ⌈0.9·n⌉-th smallest); NaN when
// there are none.
struct ErrorSummary {
  int points = 0;
  double median_rel_error = 0;
  double p90_rel_error = 0;
};
ErrorSummary summarize_errors(std::vector<double> rel_errors);

// Ranks from 1, ties sharing the mean place (2.5).
std::vector<double> ranks_of(const std::vector<double>& values);
// Spearman's rho (Pearson on the ranks); NaN for fewer than two values or a side of all ties.
double spearman(const std::vector<double>& x, const std::vector<double>& y);
// The measured value of the predicted-best entry over the measured best, less 1 (0: the model
// picked the best). Where several entries tie for the best prediction, the worst measured of
// them: a planner that cannot tell them apart may pick any. NaN when empty.
double regret(const std::vector<double>& predicted, const std::vector<double>& measured);
// The mapping regret charges: among those predicted fastest, the slowest measured; `tied` gets
// how many others share its prediction. 0 for empty input.
std::size_t predicted_best(const std::vector<double>& predicted, const std::vector<double>& measured, int& tied);

// A cost model to judge: its parameters and where they came from.
struct Predictor {
  std::string name;    // "uncalibrated", "calibrated", or the library whose model it is ("nccl")
  std::string source;  // e.g. "the plan kept in the results file", "cost.json"
  mapping::CostParams params;
  // A library's own model (/modelled_times) predicts the points it priced instead of `params`;
  // it has no per-step figure.
  std::map<results::PointKey, double> modelled;
  bool from_library = false;
};

struct PointPrediction {
  results::PointKey point;  // with the file's layout (ResultsFile::key_of)
  int flows = 1;            // the most flows on the dimension's bottleneck (calibration_flows)
  double predicted_us = 0, measured_us = 0;
  double measured_busbw_gbps = 0;   // the row's busbw (of its median)
  std::string algorithm, protocol;  // how the model priced it (CostModel::op_estimate); empty for a library's model
};

// A mapping's total (dim "step") or one of its dimensions: predicted against measured.
struct TotalPrediction {
  std::string mapping, dim;
  double predicted_us = 0, measured_us = 0;
  double predicted_rank = 0, measured_rank = 0;
};

// Over mappings: the error of their totals, whether the model orders them right, and what
// trusting its pick costs.
struct OrderAccuracy {
  int mappings = 0;
  ErrorSummary error;
  double spearman = 0;  // NaN when undefined
  double regret = 0;    // NaN when undefined
  std::string predicted_best, measured_best;
  int predicted_best_ties = 0;  // other mappings predicted as fast as predicted_best
};

struct DimAccuracy {
  std::string dim;
  ErrorSummary all, large;  // its points
  OrderAccuracy order;      // its per-mapping totals
};

struct PredictorAccuracy {
  std::string name, source;
  std::vector<PointPrediction> points;
  // Points: all; at ≥ 64 KiB; concurrent at ≥ 64 KiB; at ≥ 64 KiB with flows sharing a NIC or uplink.
  ErrorSummary all, large, concurrent_large, shared_large;
  std::vector<DimAccuracy> dims;
  std::vector<TotalPrediction> totals;  // per mapping ("step") then per (mapping, dim)
  OrderAccuracy order;
};

struct PredictionAccuracy {
  std::string timing;  // the timing mode judged (the ranking's)
  std::string basis;   // what a mapping's total is, in words
  bool per_step = false;
  std::vector<PredictorAccuracy> predictors;  // uncalibrated first
  std::vector<std::string> notes;
};

// The hardware of a file that keeps none (a log from `meshbench import`), given at report time
// (`report --node-type T --nodes N` or `--topology FILE`).
struct ReportHardware {
  topology::ClusterTopology topology;
  std::string source;  // how it was given: "--node-type p5.48xlarge --nodes 2"
};

// Judges each predictor on the file. Per point: CostModel::op_time_us with the mapping's shape
// of the row's dimension (isolated rows priced alone) against the row's median. Per mapping:
// with a workload, the model's time per step against the ranking's measured step estimate;
// without one, Σ over the (dimension, op, size) points measured for every mapping of the
// predicted times against Σ of the medians — one function of the same sizes on both sides.
// With `hardware`, the models price on it instead of the file's topology.
PredictionAccuracy prediction_accuracy(const results::ResultsFile& file, const Ranking& ranking, const std::vector<Predictor>& predictors,
                                       const std::optional<mapping::Workload>& workload, const ReportHardware* hardware = nullptr);

// The accuracy's predictors for a file: "uncalibrated" (the cost model of the plan the file
// keeps, else the topology's defaults; without its calibration) and "calibrated" when
// `calibration_path` (`report --cost-model`) is given, or else the file or its plan carries a
// calibration. InputError when that file is malformed or was measured on another topology.
// `hardware` stands in for the topology of a file that keeps none (its defaults price it);
// InputError when the file keeps a topology of its own or `hardware` has another slot count
// than the file's world.
std::vector<Predictor> report_predictors(const results::ResultsFile& file, const std::string& calibration_path,
                                         const ReportHardware* hardware = nullptr);

}  // namespace meshbench::analysis
