#pragma once
// `meshbench compare`: the regression check after a driver, NCCL, libfabric or EFA upgrade, in
// every form — two files (BASE.h5 NEW.h5), baseline and new sets (BASE… -- NEW…), interleaved,
// against a history. Points are matched by mapping structure (the digest of the group sets),
// dimension, op, backend, dtype, timing, concurrency and size; every form is one comparison of
// baseline runs against new runs, judged by one judge (judge.hpp) at every level: a point, one
// op at one size, one collective, a dimension, the whole run. What changed in provenance is part
// of the result. docs/report.md says why.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/compare/judge.hpp"
#include "analysis/compare/regression_stats.hpp"
#include "analysis/compare/verdict.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

// One difference in provenance between the runs. `before`/`after` are "(absent)" when one side
// does not have it.
struct ProvenanceChange {
  std::string kind;  // version | doctor | environment | run
  std::string name, before, after;
};

// One run of a comparison.
struct RunSide {
  std::string path, started_at, status, backend, meshbench_version;
  int world = 0;
  // The machine's state while it measured: the median core-to-core round trip of its kept
  // visits (run's /state_probes); 0 when not probed.
  double core_to_core_ns = 0;
};

// One compared point: its medians over the runs of each side, and with one run a side its samples.
struct ComparedPoint {
  results::PointKey point;  // its mapping: the first baseline's name
  std::string new_mapping;  // the first new run's name for it (equal structure; the names may differ)
  std::string backend, dtype;
  double base_median_us = 0, new_median_us = 0;                    // medians over the runs of each side
  int rounds = 0;                                                  // fewest rounds any run kept (0: none)
  std::int64_t base_wrong = -1, new_wrong = -1;                    // most wrong elements in any run of each side (-1: unchecked)
  std::size_t base_samples = 0, new_samples = 0;                   // one run a side: the samples each kept
  RatioInterval interval;                                          // one run a side: bootstrap interval of the ratio (0,0 when none)
  bool wrong() const { return new_wrong > 0 && base_wrong <= 0; }  // wrong results are a regression of their own
};

// Points judged together (UnitKind): one op at one size, one collective at every size, a
// dimension, a whole run.
struct Family {
  UnitKind kind = UnitKind::run;
  std::string timing, concurrency, dim, op;
  std::uint64_t bytes = 0;
  int points = 0;
  std::string name() const;  // "all_reduce at 64 KiB", "tp all_reduce (every size)", "dimension ep", "whole run"
};

struct Comparison {
  JudgeOptions options;
  NoiseSource noise = NoiseSource::baseline_runs;
  std::vector<RunSide> base, next;
  std::vector<ProvenanceChange> changes;  // first baseline against first new run
  int hidden_changes = 0;                 // per-launch variables left out (options.all_environment)
  std::vector<ComparedPoint> points;      // in the first baseline's order
  std::vector<Family> families;
  JudgeResult result;
  // Matching, first baseline against the others and the new runs: its points missing from
  // another run (not compared), the first new run's points not compared, mappings of the same
  // structure under other names ("base name = new name"), and names whose structure changed.
  int only_base = 0, only_new = 0;
  std::vector<std::string> renamed, restructured;
  // Machine state (RunSide::core_to_core_ns): baselines measured in another state than the new
  // runs are set aside when at least two remain; when fewer would, all are kept and
  // `state_differs` holds: a slowdown is then the machine's as much as the software's, and
  // every regression is reported as inconclusive (rerun in the baselines' state).
  std::vector<RunSide> set_aside;
  bool state_differs = false;
  // Interleaved (--interleaved), the state is matched pair by pair instead: a new run is judged
  // against the nearest baselines of its state launched before and after it, and a new run with
  // none is set aside here (select_pairs_by_state).
  std::vector<RunSide> next_set_aside;
  // Interleaved: how many (new, baseline) pairs were judged (launched_beside).
  std::size_t pairs = 0;
  // Earlier runs whose successive differences gave the noise (--history), in launch order.
  std::vector<RunSide> history;
  int wrong_points() const;
  // Points whose runs were not all measured in rounds (ComparedPoint::rounds < 2): without a
  // floor from the rounds, three baselines under-estimate a point's noise often enough to matter
  // (docs/report.md measures it); the output says so. Not with one run a side.
  int points_without_rounds() const;
  bool regressed() const { return result.regressed() || wrong_points() > 0; }
  // regression when regressed(); inconclusive when the whole run is (it moved slower, or its noise
  // exceeds the threshold, without significance), or when a slowdown was set down to
  // inconclusive because the machine states differ; clean otherwise.
  GateVerdict gate_verdict() const;
  // "OMPI_MCA_btl (absent) → tcp,self; whole run +111% slower (regressed, z 25)": one line.
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

// Which baselines share the new runs' machine state (the median of the new runs' readings; runs
// not probed match anything): their indices, or every index with `differs` when fewer than two do.
struct StateSelection {
  std::vector<std::size_t> kept;
  bool differs = false;
};
StateSelection select_baselines_by_state(const std::vector<double>& base_ns, const std::vector<double>& new_ns);

// Interleaved, the machine state is matched pair by pair: the machine changes state every few
// launches, and a set of new runs launched apart may hold both states, so one state chosen for
// the whole set (select_baselines_by_state) pairs some new runs with baselines in the other,
// whose size pattern (a fast spell is −68% at 1 KiB but −7% at 4 MiB) then reads as points
// 30% slower. Each new run is paired with the nearest baseline of its state launched before and
// after it (launched_beside, runs not probed matching anything); kept: those pairs, the new runs
// in at least one of them, and the baselines that share a kept new run's state, with the pairs
// re-indexed into the kept runs. `base` and `next` ascend; `beside` is in launch order of the new
// runs. InputError as launched_beside.
struct PairSelection {
  std::vector<std::size_t> base, next;
  std::vector<std::pair<std::size_t, std::size_t>> beside;
};
PairSelection select_pairs_by_state(const std::vector<std::string>& base_started, const std::vector<std::string>& new_started,
                                    const std::vector<double>& base_ns, const std::vector<double>& new_ns);

// Interleaved launches (baseline, new, baseline, new, …): for each new run, the nearest baseline
// launched before it and the nearest launched after it, as (new index, baseline index) pairs.
// With `matches(new, baseline)`, the nearest on each side that matches, further along past those
// that do not: a new run whose neighbour was measured in another machine state is paired with
// the next baseline of its own state rather than losing that side (a lost pair weakens the jump
// bound, JudgeInput::beside). Start times are ISO-8601 UTC (RunRecord::started_at).
// InputError when a start time is missing or no new run was launched between two baselines,
// whatever `matches` says (the runs were not interleaved).
using PairMatch = std::function<bool(std::size_t new_index, std::size_t base_index)>;
std::vector<std::pair<std::size_t, std::size_t>> launched_beside(const std::vector<std::string>& base_started,
                                                                 const std::vector<std::string>& new_started,
                                                                 const PairMatch& matches = {});

// Every form of compare: InputError (one line) for a baseline or new set that mixes layouts or
// topologies, several baselines against several new runs where one baseline has no rounds and
// there is no history, --confirm with fewer than two new runs, or no point in common. One run a
// side (and no history) is judged from the points' own moves and samples: open those files with
// their samples. `history`: earlier runs of the baseline configuration (any order; none, or at
// least kMinHistoryRuns of the baselines' layout and topology, each with its start time), whose
// successive differences give each unit's noise (JudgeInput::history).
Comparison compare_sets(const std::vector<results::ResultsFile>& base, const std::vector<results::ResultsFile>& next,
                        const JudgeOptions& options, const std::vector<results::ResultsFile>& history = {});

// What runs must share to be one configuration's reruns: the layout ("world 4, tp 2 cp 1 …") and
// the machine's shape ("2 node(s) of 2 2 slots"; host names may differ between equal machines).
std::string layout_text(const results::LayoutRecord& layout);
std::string topology_text(const results::ResultsFile& file);

// The .h5 files of a folder in name order (InputError for a folder without any), or the path
// itself when it is a file.
std::vector<std::string> expand_results_paths(const std::string& path);

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
