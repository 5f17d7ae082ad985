#pragma once
// `meshbench history FILE… | DIR`: the runs of each configuration in time order, a time series
// per point and per family of points, and the change points in them, each named by the run where
// the new level starts and what the runs' provenance says changed there ("libfabric 1.17 → 1.18").
// docs/report.md ("meshbench history") says how to read it.
#include <string>
#include <vector>

#include "analysis/compare/compare.hpp"
#include "analysis/history/change_points.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

struct HistoryOptions {
  ChangePointOptions change_points;
  bool all_environment = false;  // also list per-launch variables among the changes
};

// One change in one series, with the runs on either side of it.
struct SeriesChange {
  ChangePoint point;
  double ratio = 1;                       // after / before (> 1: slower)
  std::string run_before, run_after;      // paths of the last run before and the first after
  std::string started_after;              // start time of the first run after
  std::vector<ProvenanceChange> changes;  // between those two runs
};

struct Series {
  Family family;        // kind point: one point (mapping, dim, op, size, timing, concurrency)
  std::string mapping;  // points only: the first run's name for the mapping
  // Per run, in time order. A point: its median in µs. A family: its members' median ratio to
  // their own usual level (each member's median over the runs), so 1.0 is the family's usual level.
  std::vector<double> values;
  std::vector<SeriesChange> changes;
  std::string name() const;
};

// The runs of one configuration (layout and machine shape), in time order.
struct ConfigurationHistory {
  std::string layout, topology;
  std::vector<RunSide> runs;
  std::vector<Series> series;  // points first, then families (op at a size, collective, dimension, whole run)
  int points_not_in_every_run = 0;
  // The smallest p-value a step of min_segment runs at either end could reach with these runs
  // (smallest_reachable_p); above the p-value asked for, "no change" says nothing.
  double smallest_reachable_p = 1;
  int changed_series() const;
  int slower_series() const;  // series with a change to slower
};

struct History {
  HistoryOptions options;
  std::vector<ConfigurationHistory> configurations;
  int series() const;
  int searched_series() const;  // in configurations with enough runs to find a change
  int changed_series() const;
  int slower_series() const;
  // regression: a series changed to slower; inconclusive: none did, but some configuration's runs
  // could not have shown a step of min_segment runs at the significance asked for; clean otherwise.
  GateVerdict gate_verdict() const;
  // The fewest runs a configuration needs for that (runs_needed).
  std::size_t runs_needed() const;
};

// Runs are grouped by configuration (never mixed) and ordered by start time. A configuration
// with fewer than 2 × min_segment runs gets its series but no change points.
History build_history(const std::vector<results::ResultsFile>& runs, const HistoryOptions& options);

}  // namespace meshbench::analysis
