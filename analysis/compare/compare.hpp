#pragma once
// `meshbench compare BASE NEW`: the regression check after a driver, NCCL, libfabric or EFA
// upgrade. Rows are matched by mapping structure (the digest of the group sets), dimension, op,
// backend, dtype, timing, concurrency and size. A row regressed when its new median is slower
// by more than the threshold, and the slowdown is significant twice over (Benjamini–Hochberg
// over all rows each time): within the runs, by a one-sided Mann–Whitney U test on both runs'
// samples corrected for autocorrelation; and between the runs, by standing out from how all
// compared points of that timing mode moved (an unchanged configuration rerun moves them too).
// A whole run that moved together is a finding of its own. What changed in provenance is part of
// the result. docs/report.md says why.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/compare/judge_constants.hpp"
#include "analysis/compare/regression_stats.hpp"
#include "analysis/compare/verdict.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

struct CompareOptions {
  double threshold = 0.05;   // relative change of the median that matters
  double alpha = 0.05;       // false-discovery rate over the compared rows
  double confidence = 0.95;  // of the bootstrap interval of the median ratio
  int bootstrap = 1000;      // resamples (0: no interval)
  std::uint64_t seed = 1;
  bool all_environment = false;  // also list per-launch variables (job ids, ports, URIs)
};

// One difference in provenance between the runs. `before`/`after` are "(absent)" when one side
// does not have it.
struct ProvenanceChange {
  std::string kind;  // version | doctor | environment | run
  std::string name, before, after;
};

struct RowComparison {
  results::PointKey point;  // its mapping: the base run's name
  std::string new_mapping;  // the new run's name for it (equal structure; the names may differ)
  std::uint64_t digest = 0;
  std::string backend, dtype;
  double base_median_us = 0, new_median_us = 0;
  double ratio = 1;  // new median / base median
  std::size_t base_samples = 0, new_samples = 0;
  bool tested = false;  // both runs kept enough samples for the within-run test
  MannWhitney test;
  double q_slower = 1, q_faster = 1;  // Benjamini–Hochberg over the tested rows
  // Against how all compared points of the same timing mode moved: z = (log ratio - their
  // median) / their robust sigma, one-sided under their tail, Benjamini–Hochberg over all rows.
  double z_between = 0;
  double q_between_slower = 1, q_between_faster = 1;
  RatioInterval interval;  // bootstrap interval of the ratio (0,0 when none)
  std::int64_t base_wrong = -1, new_wrong = -1;
  Verdict verdict = Verdict::unchanged;
};

// How one timing mode's points moved between the runs (regression_stats.hpp), and whether the
// run as a whole moved: its median ratio, judged against the points' scatter (a run whose
// points all moved together by more than they scatter changed as a whole: a change that slows
// everything, clocks, or a busier machine).
struct TimingScatter {
  std::string timing;
  Scatter scatter;
  double shift_ratio = 1;  // exp(median log ratio)
  double shift_z = 0;      // median / sigma
  Verdict verdict = Verdict::unchanged;
};

// Points that moved together: one collective of one dimension across sizes and mappings, or one
// op at one size across dimensions and mappings. Regressions are collective- and size-specific
// (a protocol or algorithm threshold, a transport), while the noise of a rerun scatters over
// points, so a family whose points moved more than the others is evidence no single point
// gives: one-sided Mann–Whitney U of its log ratios against the other points' of its timing
// mode, and its shift against how all families of its kind drifted (a busier machine slows
// small messages more than large ones); Benjamini–Hochberg over all families for each, q the
// larger of the two.
struct FamilyFinding {
  std::string timing, dim, op;  // dim empty: every dimension
  std::uint64_t bytes = 0;      // 0: every size
  int points = 0;
  double median_ratio = 1;  // the family's median new/base
  double rest_ratio = 1;    // the other points'
  double p_slower = 1, p_faster = 1, q_slower = 1, q_faster = 1;
  Verdict verdict = Verdict::unchanged;
  std::string name() const;  // "ep all_to_all" or "all_reduce at 64 MiB"
};

struct RunSide {
  std::string path, started_at, status, backend, meshbench_version;
  int world = 0;
  // The machine's state while it measured: the median core-to-core round trip of its kept
  // visits (run's /state_probes); 0 when not probed.
  double core_to_core_ns = 0;
};

struct Comparison {
  CompareOptions options;
  RunSide base, next;
  std::vector<ProvenanceChange> changes;
  int hidden_changes = 0;                 // per-launch variables left out (options.all_environment)
  std::vector<RowComparison> rows;        // every matched row, in the base file's order
  std::vector<TimingScatter> scatter;     // per timing mode
  std::vector<FamilyFinding> families;    // every family tested
  int only_base = 0, only_new = 0;        // rows without a partner
  std::vector<std::string> renamed;       // "base name = new name": same structure, other name
  std::vector<std::string> restructured;  // same name, different structure: not compared
  int count(Verdict v) const;
  bool regressed() const;
  // regression when regressed(); inconclusive when a whole run moved slower beyond the threshold
  // but not significantly (TimingScatter::verdict); clean otherwise.
  GateVerdict gate_verdict() const;
  // "NCCL 2.27.5 → 2.27.7; ep all_to_all at 64 MiB +11.0% slower (+1 more)": fits one line.
  std::string headline() const;
};

// What a results file says about the run that wrote it.
RunSide run_side(const results::ResultsFile& file);
// The run's machine state: the upper quartile (nearest rank) of the core-to-core round trips of
// its kept visits (/state_probes), so a run with more than a quarter of its points measured in
// the far state counts as far; 0 when it was not probed.
double core_to_core_ns(const results::ResultsFile& file);

// Two runs' machine states differ when one's core-to-core round trip is more than
// kMachineStateFactor times the other's (judge_constants.hpp).
bool machine_states_differ(double a_ns, double b_ns);  // false when either is 0 (not probed)

// The first `shown` changes as "name before → after, …", then "(+N more)"; "" when none.
std::string changes_in_brief(const std::vector<ProvenanceChange>& changes, std::size_t shown);

// InputError (one line) when the two files have no measured point in common.
Comparison compare_runs(const results::ResultsFile& base, const results::ResultsFile& next, const CompareOptions& options);

// What changed between the runs' recorded versions, doctor versions, machine state (kind
// "machine": the core-to-core round trip, when the two differ), environment and run shape
// (world size, backend, hosts). Per-launch variables (job ids, ports, URIs, ranks) are
// left out unless `all_environment`, and counted in `hidden`.
std::vector<ProvenanceChange> provenance_changes(const results::ResultsFile& base, const results::ResultsFile& next, bool all_environment,
                                                 int& hidden);

// True for a recorded variable that differs between any two launches (job and step ids, PMIx
// and ORTE URIs and ports, a rank's own numbers).
bool is_per_launch_variable(const std::string& name);

}  // namespace meshbench::analysis
