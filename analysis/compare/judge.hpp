#pragma once
// The one judge of every form of `meshbench compare` (docs/report.md, "The judge"): each point
// and each family of points gets an effect and a noise from one source — how the other points
// moved (one run a side), how the baseline runs varied (and a run's rounds), or how successive
// runs of a history varied — and then one decision: slower than the threshold and beyond that
// noise, Benjamini–Hochberg within each level. Pure functions on log times, so that they can be
// tested on synthetic data with known answers.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/compare/judge_constants.hpp"
#include "analysis/compare/regression_stats.hpp"
#include "analysis/compare/verdict.hpp"

namespace meshbench::analysis {

// A family: the indices of its member points.
struct FamilyDef {
  UnitKind kind = UnitKind::run;
  std::vector<std::size_t> members;
};

struct JudgeInput {
  // log(median time) per run and point: base[run][point], next[run][point]. Every run holds
  // every point (the caller keeps the points all runs share).
  std::vector<std::vector<double>> base, next;
  // One run a side and no history (noise from the points): each point's per-iteration samples of
  // the baseline and the new run, in iteration order, for the within-run test (empty where a
  // file keeps none, or the point has too few for the test to reach significance).
  std::vector<std::vector<double>> base_samples, next_samples;
  // Optional, same shape (or empty): the variance of each run's log median as its rounds
  // estimate it (between-round spread); 0 where a run has no rounds.
  std::vector<std::vector<double>> base_round_var, next_round_var;
  // Per point, the fewest rounds any run measured it in (empty, 0 or 1: no rounds): how many
  // degrees of freedom the rounds' variance rests on.
  std::vector<int> rounds;
  std::vector<FamilyDef> families;  // kinds other than point
  // Interleaved launches (baseline, new, baseline, new, …): the (new run, baseline run) index
  // pairs launched next to each other. When set, each unit's effect is the median of its
  // differences over these pairs alone (below the whole run, for a slowdown the order of
  // adjacent_order, the lower median in a full window):
  // the machine's slow spells last several launches, so they move both runs of an adjacent pair
  // and cancel, where they widen the spread between baselines launched apart. The whole run's
  // noise is then the spread of its adjacent differences around that median; a point's or
  // family's, the baseline pairs' pooled with the rounds' (docs/report.md, "Interleaved
  // launches"). Empty: every new run against every baseline, the noise from the baseline pairs.
  std::vector<std::pair<std::size_t, std::size_t>> beside;
  // Optional: log(median time) per earlier run of the baseline configuration, in the order they
  // were launched (history[run][point], every point). When set, each unit's noise and jumps come
  // from its differences between successive history runs, not from the baseline pairs and the
  // rounds: one gate run sees only m − 1 baseline contrasts, a history sees every launch the
  // gate kept, and successive launches share the machine's slow spells as adjacent ones do
  // (rustc-perf sets each benchmark's threshold from its historical run-to-run deltas the same
  // way; docs/report.md, "Noise from the gate's history").
  std::vector<std::vector<double>> history;
};

// Every option of every form of compare.
struct JudgeOptions {
  double threshold = 0.05;           // floor: a change smaller than this is never a regression
  double alpha = 0.01;               // false-alarm rate of the whole verdict: alpha / levels for each (BH within it)
  bool confirm = false;              // a regression must also stand alone in a second new run
  bool interleaved = false;          // baselines and new runs were launched alternately (JudgeInput::beside)
  double prior_pairs = kPriorPairs;  // weight of the level's pooled noise in each unit's (in baseline pairs)
  double confidence = 0.95;          // of the bootstrap interval of a point's ratio (one run a side)
  int bootstrap = 1000;              // its resamples (0: no interval)
  std::uint64_t seed = 1;
  bool all_environment = false;  // also list per-launch variables (job ids, ports, URIs)
  // The threshold as a log ratio: slower beyond +floor, faster beyond −floor (symmetric, so that
  // a change and its reverse are called alike).
  double floor() const;
};

// Where the noise comes from for this input: the history when it holds runs, the points
// themselves with one run a side, the baseline runs (and rounds) otherwise.
NoiseSource noise_source(const JudgeInput& input);

// The evidence for one point or family.
struct UnitFinding {
  UnitKind kind = UnitKind::point;
  std::size_t index = 0;  // the point's index, or the family's in JudgeInput::families
  // log(new / baseline centre): the new runs' median against the baselines'. Below the whole
  // run, relative to the run's own shift (each run's times divided by its whole-run factor).
  double effect = 0;
  // The effect with the lower (upper) median of an even number of points: what the slower
  // (faster) verdict is judged on, so that more than half of a family's points must move.
  double effect_slow = 0, effect_fast = 0;
  double own_sigma = 0;    // one run's noise from this unit's baseline pairs alone (log)
  double sigma = 0;        // the same, shrunk towards its kind's and floored by the rounds
  double round_sigma = 0;  // one run's noise from the rounds alone (0 without rounds)
  double noise = 0;        // standard deviation of `effect` for an unchanged configuration
  double df = 0;           // degrees of freedom of sigma (Student t tail; 0: taken as known)
  double z = 0;            // effect / noise
  // One-sided p-values, the largest over the unit's tests, and their Benjamini–Hochberg
  // q-values within the level (each test corrected on its own, q the largest).
  double p_slower = 1, p_faster = 1, q_slower = 1, q_faster = 1;
  // The smallest slowdown (log) this unit would be called regressed for if it moved alone: the
  // threshold, or where its p-value reaches the first Benjamini–Hochberg step of its level
  // (alpha / units), whichever is larger; +inf when no slowdown could reach it. Measured effects
  // scatter around the true one by `noise`, so a true slowdown of detectable + 1.645 · noise is
  // called 95% of the time. It tells a user whether the baseline set can see what they look for.
  double detectable = 0;
  int runs_slower = 0;  // new runs in which it regressed on its own (--confirm)
  // One run a side: the point's within-run test, a one-sided Mann–Whitney U of its two runs'
  // samples (not tested: no samples, or too few for any difference to reach significance).
  bool within_tested = false;
  MannWhitney within;
  Verdict verdict = Verdict::unchanged;
  bool unconfirmed = false;  // regressed, but not in two new runs (--confirm)
};

// How small a slowdown one level of a comparison can see: over its units, the median of
// UnitFinding::detectable and of detectable + 1.645 · noise (called 95% of the time). Logs;
// +inf when most units could not be called at all.
struct LevelReach {
  int units = 0;
  double called = 0, found_95 = 0;
};

struct JudgeResult {
  std::vector<UnitFinding> points;    // in the input's point order
  std::vector<UnitFinding> families;  // in the input's family order
  double tail_nu[kUnitKinds] = {};    // the tail each kind was judged under (0: normal)
  double level_alpha = 0;             // the false-discovery rate each level was judged at
  // Steps between successive history runs left out as whole-run jumps (the most
  // in any timing mode); 0 without a history.
  int history_jumps = 0;
  int count(UnitKind kind, Verdict v) const;
  bool regressed() const;  // any point or family regressed
  LevelReach reach(UnitKind kind) const;
};

// Judges every point and family. Needs one run a side, or at least two baseline runs, or one
// with rounds, or a history of at least kMinHistoryRuns runs; the caller checks that
// (InputError) before calling.
JudgeResult judge(const JudgeInput& input, const JudgeOptions& options);

// Interleaved, below the whole run, a unit is called slower when `above` of its adjacent
// differences are (the effect is the `above`-th largest of them), and an honest run that jumped at
// the unit moves every difference it is in: at least `runs` runs must have jumped for `above`
// differences to move, the fewest whose pairs cover that many. `above` is the lower median's
// count, or one more where that one more needs another run to jump: a window that lost a pair
// (seven of eight) would otherwise be fooled by two runs where eight pairs need three, and a
// baseline that stands beside several new runs (the nearest of their state) counts for each.
struct AdjacentOrder {
  std::size_t above = 0, runs = 0;
};
AdjacentOrder adjacent_order(const std::vector<std::pair<std::size_t, std::size_t>>& beside);

// Robust standard deviation of one run from the pairwise differences of `values` (one per
// baseline run): 1.4826 · median |v_i − v_j| / √2 over the pairs i < j; 0 for fewer than 2.
double pairwise_sigma(const std::vector<double>& values);

// Variance of the median of n independent normal draws, in units of one draw's variance:
// 1/n for n ≤ 2, π/(2n) above (the asymptotic value, within 15% at n = 3).
double median_variance_factor(std::size_t n);

// Variance of a run's log median from its per-round medians (log): (1.4826·MAD)² · π/(2R),
// 0 for fewer than 2 rounds.
double round_variance(const std::vector<double>& log_round_medians);

}  // namespace meshbench::analysis
