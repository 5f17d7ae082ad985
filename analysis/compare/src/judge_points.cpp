// Noise from the points: one run a side and no history (`compare BASE.h5 NEW.h5`, or a set of one
// against one). Nothing measures how whole runs vary, so each unit is judged against how the
// other units moved between the same two runs — the points of its whole run, the families of its
// level — and each point also by its own samples (docs/report.md, "The judge").
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "analysis/compare/judge.hpp"
#include "analysis/compare/regression_stats.hpp"
#include "analysis/compare/src/judge_decision.hpp"

namespace meshbench::analysis::detail {

namespace {

constexpr double kUntested = std::numeric_limits<double>::quiet_NaN();

// How the points moved between the two runs.
struct PointMoves {
  std::vector<double> x;         // log(new / base) per point
  std::vector<std::size_t> run;  // per point, the index of its whole-run family (or npos)
  std::vector<Scatter> scatter;  // per point, how the points of its whole run moved (not estimated: centre 0)
  std::vector<double> relative;  // x less its whole run's centre
  // Per point, the null a slowdown (speed-up) is judged against: the scatter of its run's points
  // that moved the other way, mirrored, so that a slowdown of many points does not widen the very
  // scale it is judged by; its tail at least the whole run's (capped: kHeaviestPointsTail).
  std::vector<Scatter> slower_null, faster_null;
};

// The points on one side of the centre (sign +1: a slowdown's null, from the points below it),
// mirrored onto both sides, with the heavier of their tail and the whole run's `whole`, capped at
// kHeaviestPointsTail.
Scatter mirrored_scatter(const std::vector<double>& relative, double sign, const Scatter& whole) {
  std::vector<double> mirrored;
  for (double d : relative) {
    if (sign * d > 0) continue;
    mirrored.push_back(d);
    mirrored.push_back(-d);
  }
  Scatter s = run_to_run_scatter(mirrored);
  s.centre = 0;
  const auto heavier = [](double a, double b) { return a <= 0 ? b : b <= 0 ? a : std::min(a, b); };
  double nu = heavier(s.tail_nu, whole.tail_nu);
  if (nu > 0 && nu < kHeaviestPointsTail) nu = kHeaviestPointsTail;
  if (s.estimated) set_tail(s, nu);
  return s;
}

PointMoves point_moves(const JudgeInput& in) {
  PointMoves m;
  const std::size_t n = in.base.front().size();
  for (std::size_t p = 0; p < n; ++p) m.x.push_back(in.next.front()[p] - in.base.front()[p]);
  m.run.assign(n, std::string::npos);
  m.scatter.assign(n, Scatter{});
  for (std::size_t f = 0; f < in.families.size(); ++f) {
    if (in.families[f].kind != UnitKind::run) continue;
    std::vector<double> x;
    for (auto p : in.families[f].members) x.push_back(m.x[p]);
    const Scatter s = run_to_run_scatter(x);
    for (auto p : in.families[f].members) {
      m.run[p] = f;
      m.scatter[p] = s;
    }
  }
  for (std::size_t p = 0; p < n; ++p) m.relative.push_back(m.x[p] - m.scatter[p].centre);
  m.slower_null.assign(n, Scatter{});
  m.faster_null.assign(n, Scatter{});
  for (const auto& def : in.families) {
    if (def.kind != UnitKind::run) continue;
    std::vector<double> relative;
    for (auto p : def.members) relative.push_back(m.relative[p]);
    const Scatter& whole = m.scatter[def.members.front()];
    const Scatter slower = mirrored_scatter(relative, 1, whole), faster = mirrored_scatter(relative, -1, whole);
    for (auto p : def.members) {
      m.slower_null[p] = slower;
      m.faster_null[p] = faster;
    }
  }
  return m;
}

double ratio_z(double d, double sigma) { return sigma > 0 ? d / sigma : (d > 0 ? INFINITY : d < 0 ? -INFINITY : 0.0); }

// P(a unit standing `d` above the scatter's centre moved that far by chance); with no scatter at
// all any move stands out.
double beyond(const Scatter& s, double d) { return s.sigma > 0 ? scatter_upper_tail(s, d / s.sigma) : (d > 0 ? 0.0 : 1.0); }

// Points: each against how the other points of its whole run moved (between the runs), and by
// a one-sided Mann–Whitney U of its two runs' samples (within the runs). A point with too few
// samples for the within-run test to reach significance is judged by the first alone.
void judge_points(const JudgeInput& in, const PointMoves& m, const JudgeOptions& o, JudgeResult& r) {
  const std::size_t n = m.x.size();
  r.points.assign(n, UnitFinding{});
  std::vector<UnitFinding*> units;
  LevelTests tests{{{}, {}}, {{}, {}}};
  std::size_t with_samples = 0;
  for (std::size_t p = 0; p < n; ++p) {
    with_samples += p < in.base_samples.size() && !in.base_samples[p].empty() && !in.next_samples[p].empty() ? 1 : 0;
  }
  for (std::size_t p = 0; p < n; ++p) {
    auto& u = r.points[p];
    u.kind = UnitKind::point;
    u.index = p;
    const Scatter& s = m.scatter[p];
    u.effect = u.effect_slow = u.effect_fast = m.relative[p];
    u.sigma = u.own_sigma = u.noise = s.estimated ? s.sigma : 0.0;
    u.z = ratio_z(u.effect, u.noise);
    // Too few points to tell how this run moves: the within-run test alone decides.
    const Scatter &slow = m.slower_null[p], &fast = m.faster_null[p];
    tests.slower[0].push_back(s.estimated && slow.estimated ? beyond(slow, u.effect) : 0.0);
    tests.faster[0].push_back(s.estimated && fast.estimated ? beyond(fast, -u.effect) : 0.0);
    const bool sampled = p < in.base_samples.size() && !in.base_samples[p].empty() && !in.next_samples[p].empty();
    u.within_tested = sampled && mann_whitney_min_p(in.base_samples[p].size(), in.next_samples[p].size()) <=
                                     o.alpha / static_cast<double>(std::max<std::size_t>(with_samples, 1));
    if (u.within_tested) u.within = mann_whitney(in.base_samples[p], in.next_samples[p]);
    tests.slower[1].push_back(u.within_tested ? u.within.p_slower : kUntested);
    tests.faster[1].push_back(u.within_tested ? u.within.p_faster : kUntested);
    const auto p_at = [&s, &slow](double e) { return s.estimated && slow.estimated ? beyond(slow, e) : 0.0; };
    u.detectable = detectable_slowdown(p_at, o.floor(), o.alpha / static_cast<double>(n));
    units.push_back(&u);
    if (slow.estimated && slow.tail_nu > 0 && (r.tail_nu[0] <= 0 || slow.tail_nu < r.tail_nu[0])) r.tail_nu[0] = slow.tail_nu;
  }
  decide_level(units, tests, o);
}

// Whole runs: each one's median move against its points' scatter, normal-tailed: a run whose
// points all moved together by more than they scatter moved as a whole. With one run a side that
// may be the machine's slow spell as much as the software, which the threshold and the
// inconclusive verdict leave to baseline runs to tell apart.
void judge_runs(const JudgeInput& in, const PointMoves& m, const JudgeOptions& o, JudgeResult& r) {
  std::vector<UnitFinding*> units;
  LevelTests tests{{{}}, {{}}};
  for (std::size_t f = 0; f < in.families.size(); ++f) {
    const auto& def = in.families[f];
    if (def.kind != UnitKind::run || def.members.empty()) continue;
    auto& u = r.families[f];
    std::vector<double> x;
    for (auto p : def.members) x.push_back(m.x[p]);
    const Scatter& s = m.scatter[def.members.front()];
    u.effect = median_of(x);
    u.effect_slow = median_by(x, -1);
    u.effect_fast = median_by(x, 1);
    // Its noise is how well the points pin its median (the median's standard error under their
    // scatter), but it is called only when it stands beyond the scatter itself: z counts in
    // sigma, not in standard errors, because with one run a side a whole run that moved may be
    // the machine's slow spell, which moves every point alike.
    u.sigma = u.own_sigma = s.sigma;
    u.noise = s.sigma * std::sqrt(median_variance_factor(x.size()));
    u.z = ratio_z(u.effect, u.sigma);
    tests.slower[0].push_back(s.estimated ? normal_upper_tail(u.z) : 1.0);
    tests.faster[0].push_back(s.estimated ? normal_upper_tail(-u.z) : 1.0);
    units.push_back(&u);
  }
  for (auto* u : units) {
    const Scatter& s = m.scatter[in.families[u->index].members.front()];
    const auto p_at = [&s](double e) { return s.estimated && s.sigma > 0 ? normal_upper_tail(e / s.sigma) : 1.0; };
    u->detectable = detectable_slowdown(p_at, o.floor(), o.alpha / static_cast<double>(units.size()));
  }
  decide_level(units, tests, o);
}

// Families below the whole run (one op at one size, one collective, one dimension): the members'
// moves against the other points of their whole runs (one-sided Mann–Whitney U, unordered), and
// the family's shift against how the other families of its level shifted (a busier machine
// slows small messages more than large ones, so families drift too).
void judge_families(const JudgeInput& in, const PointMoves& m, UnitKind kind, const JudgeOptions& o, JudgeResult& r) {
  std::vector<UnitFinding*> units;
  std::vector<double> shift;
  LevelTests tests{{{}, {}}, {{}, {}}};
  for (std::size_t f = 0; f < in.families.size(); ++f) {
    const auto& def = in.families[f];
    if (def.kind != kind || def.members.empty()) continue;
    std::vector<bool> member(m.x.size(), false);
    for (auto p : def.members) member[p] = true;
    std::set<std::size_t> runs;  // the whole runs its members belong to
    for (auto p : def.members) runs.insert(m.run[p]);
    std::vector<double> inside, outside;
    for (std::size_t p = 0; p < m.x.size(); ++p) {
      if (member[p]) inside.push_back(m.relative[p]);
      else if (runs.count(m.run[p]) > 0) outside.push_back(m.relative[p]);
    }
    auto& u = r.families[f];
    u.effect = median_of(inside);
    u.effect_slow = median_by(inside, -1);
    u.effect_fast = median_by(inside, 1);
    // Too few points on either side: no test (a family of all its run's points, or of two).
    const bool tested = inside.size() >= 3 && outside.size() >= 3;
    const MannWhitney t = tested ? mann_whitney_unordered(outside, inside) : MannWhitney{};
    tests.slower[0].push_back(t.p_slower);
    tests.faster[0].push_back(t.p_faster);
    shift.push_back(tested ? median_of(inside) - median_of(outside) : kUntested);
    // How far its median moves under the points' scatter alone, when the families' own drift
    // cannot be measured (below).
    const Scatter& points = m.scatter[def.members.front()];
    u.noise = points.sigma * std::sqrt(median_variance_factor(inside.size()));
    units.push_back(&u);
  }
  // Each family's shift against the others' (with a handful of families, the one judged would
  // otherwise make the tail it is judged by).
  for (std::size_t j = 0; j < units.size(); ++j) {
    std::vector<double> others;
    for (std::size_t i = 0; i < shift.size(); ++i) {
      if (i != j && !std::isnan(shift[i])) others.push_back(shift[i]);
    }
    const Scatter s = run_to_run_scatter(others, kMinFamiliesForScatter);
    auto& u = *units[j];
    if (s.estimated) u.noise = s.sigma;
    u.sigma = u.own_sigma = u.noise;
    u.z = ratio_z(u.effect, u.noise);
    const bool tested = !std::isnan(shift[j]), judged = s.estimated && tested;
    // Too few families to tell how they drift: the Mann-Whitney test alone.
    tests.slower[1].push_back(judged ? beyond(s, shift[j] - s.centre) : 0.0);
    tests.faster[1].push_back(judged ? beyond(s, s.centre - shift[j]) : 0.0);
    const auto p_at = [&s, tested](double e) { return !tested ? 1.0 : s.estimated ? beyond(s, e - s.centre) : 0.0; };
    u.detectable = detectable_slowdown(p_at, o.floor(), o.alpha / static_cast<double>(units.size()));
  }
  decide_level(units, tests, o);
}

}  // namespace

void judge_from_points(const JudgeInput& in, const JudgeOptions& o, JudgeResult& r) {
  const PointMoves m = point_moves(in);
  judge_points(in, m, o, r);
  r.families.assign(in.families.size(), UnitFinding{});
  for (std::size_t f = 0; f < in.families.size(); ++f) {
    r.families[f].kind = in.families[f].kind;
    r.families[f].index = f;
  }
  judge_runs(in, m, o, r);
  for (auto kind : {UnitKind::op_size, UnitKind::collective, UnitKind::dimension}) judge_families(in, m, kind, o, r);
}

}  // namespace meshbench::analysis::detail
