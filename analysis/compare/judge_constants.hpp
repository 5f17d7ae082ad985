#pragma once
// Every tuned constant of compare's and history's judges, in one place, each with what set it
// (docs/report.md, "Tuned constants", has the same as a table). The statistics read them from
// here; options that a user may change (threshold, alpha, --p-value) are not here.
#include <array>
#include <cstddef>

#include "results/records.hpp"

namespace meshbench::analysis {

// 1 / Φ⁻¹(3/4): a median absolute deviation as a normal sigma (a definition, not a tuning).
inline constexpr double kMadToSigma = 1.482602218505602;

// Two runs' machine states differ when one's core-to-core round trip is more than this many times
// the other's; the runner uses the same figure to call a visit disturbed (results/records.hpp).
using results::kMachineStateFactor;

// The fewest earlier runs `--history` must hold: four successive differences per unit, the
// fewest from which a robust spread is more than its largest difference.
inline constexpr std::size_t kMinHistoryRuns = 5;

// Standardised differences needed before a level's tail is fitted rather than taken as normal:
// below 20 the exceedance counts at 2.5-8 sigma are 0 or 1 under any tail and decide nothing.
inline constexpr std::size_t kTailPoints = 20;

// The tails tried, lightest first (degrees of freedom of a scaled Student t; 0 is the normal),
// and the levels (in sigmas) whose exceedance counts must all be plausible (Poisson, p >= 0.2)
// under the tail chosen. The ladder reaches the Cauchy (1) that a VM's 100x jumps need.
inline constexpr std::array<double, 6> kTailCandidates = {0, 10, 5, 3, 2, 1};
inline constexpr std::array<double, 5> kExceedanceLevels = {2.5, 3, 4, 5, 8};

// A step between successive history runs where the whole run moved by more than this many robust
// sigmas of its steps is a whole-run jump (a spell of the machine starting or ending), left out
// of every unit's noise: the jumps seen on the VM moved the whole run 20-40%, honest steps 1-3%.
inline constexpr double kWholeRunJumpSigmas = 5;

// How much a unit's own noise is shrunk towards its level's pooled noise, in baseline pairs: three
// baselines give three pairs, too few to trust alone; ten lets a unit that is really noisier
// than its level still show it after about ten runs.
inline constexpr double kPriorPairs = 10;

// The fewest points of one timing mode from which the two-file judge estimates how the whole run
// moved (their scatter); with fewer, each point's within-run test decides alone. Eight points
// give a median absolute deviation that two outliers cannot move past the bulk.
inline constexpr std::size_t kMinScatterPoints = 8;

// The fewest families of one level from which a family's shift is judged against the others'
// (each against the rest, so five families leave four to judge by).
inline constexpr std::size_t kMinFamiliesForScatter = 5;

// A count of exceedances is surprising under a tail when its Poisson probability is below this:
// lenient, so that a tail is given up only on clear evidence (kTailCandidates).
inline constexpr double kExceedancePlausible = 0.2;

// One run a side, a slowdown is judged against the points that moved the other way, with the
// heavier of their tail and the whole run's, but never heavier than this (Student t degrees of
// freedom): a loaded machine's honest jumps are slowdowns only, which the whole run's tail holds
// and the other side's does not, while a regression of many points makes the whole run's tail a
// Cauchy (1) under which no single point could stand out (docs/report.md, "The judge").
inline constexpr double kHeaviestPointsTail = 2;

// Pooled samples up to which the Mann-Whitney U's exact distribution is computed; beyond, the
// normal approximation with ties is used.
inline constexpr std::size_t kExactLimit = 40;

// The most lags summed for a series' effective sample size (autocorrelation): at most a quarter
// of the series, and no more than this.
inline constexpr std::size_t kMaxLags = 500;

// The largest slowdown a "what this set can detect" search looks at, as a log ratio: log(1000).
// A set that cannot see a 1000-fold change is reported as detecting nothing (+inf).
inline constexpr double kLargestDetectableLog = 6.907755278982137;

}  // namespace meshbench::analysis
