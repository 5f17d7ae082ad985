#include "analysis/compare/src/judge_decision.hpp"

#include <algorithm>

#include "analysis/compare/regression_stats.hpp"

namespace meshbench::analysis {

double JudgeOptions::floor() const { return std::log1p(threshold); }

namespace detail {

// which: 0 the median, −1 the lower median, +1 the upper (equal for an odd count).
double median_by(std::vector<double> v, int which) {
  if (which == 0) return median_of(v);
  std::sort(v.begin(), v.end());
  return v[which < 0 ? (v.size() - 1) / 2 : v.size() / 2];
}

Verdict decide(const UnitFinding& u, const JudgeOptions& o) {
  const double floor = o.floor();
  if (u.effect > floor) return u.effect_slow > floor && u.q_slower <= o.alpha ? Verdict::regressed : Verdict::inconclusive;
  if (u.effect < -floor) return u.effect_fast < -floor && u.q_faster <= o.alpha ? Verdict::improved : Verdict::inconclusive;
  // Within the floor, but from runs that vary by more than the floor itself: no evidence either way.
  return u.noise > floor ? Verdict::inconclusive : Verdict::unchanged;
}

void decide_level(const std::vector<UnitFinding*>& units, const LevelTests& tests, const JudgeOptions& o) {
  for (auto* u : units) u->p_slower = u->p_faster = u->q_slower = u->q_faster = 0;
  for (const auto* side : {&tests.slower, &tests.faster}) {
    const bool slower = side == &tests.slower;
    for (const auto& p : *side) {
      // A unit the test does not apply to (NaN) is left out of its correction and passes it.
      std::vector<double> tested;
      for (double x : p) {
        if (!std::isnan(x)) tested.push_back(x);
      }
      const auto q = benjamini_hochberg(tested);
      for (std::size_t u = 0, t = 0; u < units.size(); ++u) {
        if (std::isnan(p[u])) continue;
        double& unit_p = slower ? units[u]->p_slower : units[u]->p_faster;
        double& unit_q = slower ? units[u]->q_slower : units[u]->q_faster;
        unit_p = std::max(unit_p, p[u]);
        unit_q = std::max(unit_q, q[t++]);
      }
    }
  }
  for (auto* u : units) u->verdict = decide(*u, o);
}

}  // namespace detail
}  // namespace meshbench::analysis
