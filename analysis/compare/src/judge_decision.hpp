#pragma once
// Private: the decision every noise source of the judge ends in (judge.hpp). A noise source gives
// each unit of a level its effect, noise and one-sided p-values, one per test it must pass; the
// decision corrects each test over the level (Benjamini–Hochberg), keeps the largest q, and calls
// the unit against the threshold.
#include <cmath>
#include <vector>

#include "analysis/compare/judge.hpp"

namespace meshbench::analysis::detail {

// which: 0 the median, −1 the lower median, +1 the upper (equal for an odd count).
double median_by(std::vector<double> v, int which);

// One-sided p-values of one level: slower[test][unit], faster[test][unit].
struct LevelTests {
  std::vector<std::vector<double>> slower, faster;
};

// regressed: slower than the floor (its lower median too) and q_slower within alpha; improved
// alike; inconclusive: beyond the floor without significance, or within it from a noise that
// exceeds the floor itself; unchanged otherwise.
Verdict decide(const UnitFinding& unit, const JudgeOptions& level_options);

// Sets each unit's p (the largest over its tests), q (the largest over its tests of the test's
// Benjamini–Hochberg q within the level) and verdict.
void decide_level(const std::vector<UnitFinding*>& units, const LevelTests& tests, const JudgeOptions& level_options);

// The smallest effect above `floor` whose p-value (decreasing in the effect) is at most `alpha`,
// by bisection on the log scale; +inf when even a 1000-fold slowdown is not.
template <class PValue>
double detectable_slowdown(const PValue& p_value, double floor, double alpha) {
  if (p_value(floor) <= alpha) return floor;
  if (p_value(kLargestDetectableLog) > alpha) return INFINITY;
  double low = floor, high = kLargestDetectableLog;
  for (int i = 0; i < 60 && high - low > 1e-6; ++i) {
    const double mid = 0.5 * (low + high);
    (p_value(mid) <= alpha ? high : low) = mid;
  }
  return high;
}

// Noise from the points (one run a side, no history): every level of `result` judged from how the
// points of each whole run moved against each other and from each point's samples.
void judge_from_points(const JudgeInput& input, const JudgeOptions& level_options, JudgeResult& result);

}  // namespace meshbench::analysis::detail
