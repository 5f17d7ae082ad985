#pragma once
// "% of expected": each measured point's busbw against the busbw the cost model predicts for
// it on the file's hardware (or the hardware `report --node-type/--topology` gives an imported
// log), and the points below a threshold named: a cluster acceptance check
// (docs/report.md, "% of expected"). Built on the accuracy section's per-point predictions.
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/prediction_accuracy.hpp"
#include "results/point_key.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

// `report --expect-below`'s default: a point reaching less than this share of the model's busbw
// is named. Set from the model's error on the published H100 tables it is held to
// (tests/data/published): the 5th percentile of published / predicted busbw is 66% below 1 MiB,
// 76% in [1, 32) MiB and 72% at 32 MiB and more (139 points of 8 tables), so a healthy cluster
// has about one point in twenty below 70% (docs/gpu-model.md).
inline constexpr double kExpectBelowPct = 70.0;

struct ExpectedPoint {
  results::PointKey point;  // the accuracy's point (PointPrediction::point)
  double measured_busbw_gbps = 0, predicted_busbw_gbps = 0;
  double expected_pct = 0;  // measured busbw / predicted busbw × 100
  std::string algorithm, protocol;
};

struct ExpectedSection {
  bool known = false;  // false: no hardware to price with; `note` says how to add it
  double threshold_pct = kExpectBelowPct;
  std::string predictor;  // the accuracy's predictor it reads (the uncalibrated one)
  std::string model;      // "NCCL 2.28.9 tuning model", "alpha-beta", ... (estimate_basis)
  std::string hardware;   // where the hardware came from
  std::vector<ExpectedPoint> points;
  std::vector<ExpectedPoint> below;  // points under threshold_pct, lowest first
  std::string note;
};

// The section from the accuracy's first predictor (the uncalibrated model); without accuracy,
// a section that is not `known` with a note saying how to add the hardware.
ExpectedSection expected_section(const std::optional<PredictionAccuracy>& accuracy, const results::ResultsFile& file, double threshold_pct,
                                 const ReportHardware* hardware);

}  // namespace meshbench::analysis
