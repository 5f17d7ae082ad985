#pragma once
// `meshbench report`: everything the report says about one results file, as data. The
// writers (report_writers.hpp) only format it.
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/curves.hpp"
#include "analysis/report/expected.hpp"
#include "analysis/report/gpu_health_report.hpp"
#include "analysis/report/io_section.hpp"
#include "analysis/report/layout_ranking.hpp"
#include "analysis/report/nic_traffic.hpp"
#include "analysis/report/placement.hpp"
#include "analysis/report/prediction_accuracy.hpp"
#include "analysis/report/ranking.hpp"
#include "analysis/report/report_apply.hpp"
#include "analysis/report/report_spread.hpp"
#include "mapping/workload.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

struct RunSummary {
  std::string path, status, backend, started_at, finished_at, meshbench_version, order;
  int world = 0, tp = 1, cp = 1, pp = 1, ep = 1, etp = 1, dp = 1, edp = 1;
  std::vector<std::string> hosts;    // distinct, in rank order
  std::vector<std::string> layouts;  // a file of several layouts: "ep4: TP1 CP1 PP1 EP4 ETP1 -> DP8 EDP2"; else empty
  int mappings = 0, rows = 0, failures = 0;
  std::vector<std::string> failure_messages;
};

// The plan's prediction for one mapping's dimension (or "step") against what was measured.
struct PredictionRow {
  std::string mapping, dim;
  double predicted_us = 0;
  double measured = 0;        // µs per step when like for like, else the ranking's score
  double predicted_rank = 0;  // "step" rows: the mapping's place by prediction and by measurement
  double measured_rank = 0;   // (ties share the mean place, e.g. 2.5)
};
struct PredictionCheck {
  // The plan predicted per step for the same workload the report ranks with: the numbers
  // compare directly. Otherwise only the order does (the plan's figures are sums over its own
  // size sweep, or for another workload).
  bool like_for_like = false;
  std::string basis;
  std::vector<PredictionRow> rows;
  double rank_correlation = 0;  // Spearman's rho between predicted and measured order; NaN when either side is all ties
  int compared_mappings = 0;
};

// A point whose check counted wrong elements: reported, never averaged away.
struct WrongRow {
  results::PointKey point;
  std::int64_t wrong = 0;
};

struct Report {
  RunSummary run;
  Ranking ranking;
  std::optional<LayoutRanking> layouts;      // a file of several layouts: the layouts ranked
  std::vector<Curve> curves;                 // all of them, for busbw against size
  std::vector<GroupSpread> spreads;          // every point with group timings
  std::vector<GroupSpread> largest_spreads;  // one per (mapping, dim, op, timing, concurrency)
  std::vector<HostTally> slow_hosts;
  std::optional<PredictionCheck> predictions;  // when the plan predicted
  // Per point, dimension and mapping, the cost model (uncalibrated, and calibrated when a
  // calibration is at hand) against the measurements; absent when the file keeps no topology.
  std::optional<PredictionAccuracy> accuracy;
  // Each point's busbw against the model's on the hardware: "% of expected", the points below
  // the threshold named; not `known` (with a note) when the hardware is not.
  ExpectedSection expected;
  std::optional<ApplyHint> best;  // for the best-ranked mapping
  std::vector<WrongRow> wrong;
  std::vector<results::TransportUse> transports;  // run --nccl-debug: NCCL's transports per dimension
  std::optional<Placements> placement;            // absent when the file keeps no readable topology
  NicTraffic nic;                                 // the NICs' counters around each visit (empty: not read)
  GpuHealthSection gpu_health;                    // NVML's readings during the points, host copies
  std::vector<IoSummary> io;                      // meshbench io's checkpoint bandwidth, when the file has it
};

// With `workload`, the ranking estimates step time; `workload_source` says where it came from
// ("results file" or a path). The accuracy judges `predictors` (report_predictors), or without
// them the file's own. InputError when the file holds no measurement (nor io rows: a file of
// `meshbench io` alone reports those and its run summary only), or the workload does not fit the layout.
// `hardware` prices a file that keeps no topology (report_predictors takes the same);
// `expect_below_pct` is the "% of expected" threshold.
Report build_report(const results::ResultsFile& file, const std::optional<mapping::Workload>& workload, const std::string& workload_source,
                    const std::vector<Predictor>& predictors = {}, const ReportHardware* hardware = nullptr,
                    double expect_below_pct = kExpectBelowPct);

// The workload to rank with: `path` when given (mapping::load_workload), else the one stored in
// the file (/layout attr workload_json), else none. `source` says which.
std::optional<mapping::Workload> choose_workload(const results::ResultsFile& file, const std::string& path, std::string& source);

}  // namespace meshbench::analysis
