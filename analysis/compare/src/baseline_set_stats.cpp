#include "analysis/compare/baseline_set_stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>

#include "analysis/compare/regression_stats.hpp"

namespace meshbench::analysis {

namespace {

constexpr double kMadToSigma = 1.482602218505602;  // 1 / Φ⁻¹(3/4)
// Standardised baseline differences needed before a kind's tail is read from them rather than
// assumed normal.
constexpr std::size_t kTailPoints = 20;
// A step between successive history runs in which the whole run moved by more than this many
// robust sigmas of its steps is a change of the machine's state, not noise (see below).
constexpr double kStateChangeSigmas = 5;

// What one unit (a point or a family) is judged on, from differences between runs only: for
// runs a and b, D(a, b) = median over its points of (log t_a − log t_b), less the whole run's
// D(a, b) below the whole-run level. A difference of two runs needs no centre, so a baseline
// is never compared with a centre it is part of (which would shrink its spread).
struct UnitValues {
  std::vector<double> base_pairs;  // D(i, j) for the baseline pairs i < j
  double effect = 0;               // median of D(new j, base i) over all such pairs
  // The same with D's lower (upper) median for an even number of points: slower (faster) must
  // hold for more than half of a family's points, not for two of four.
  double effect_slow = 0, effect_fast = 0;
  std::vector<double> effect_per_new;  // median over i of D_low(new j, base i), per new run
  double round_var = 0;                // mean over the runs of the rounds' variance of this value
  // Interleaved (BaselineSetInput::beside): the effect is the median over the adjacent (new,
  // baseline) pairs alone; for the whole run, base_pairs then hold those differences around it.
  std::size_t adjacent = 0;  // how many adjacent pairs (0: every new run against every baseline)
  AdjacentOrder order;       // below the whole run: which of them the effect is, and the runs it takes
  bool noise_from_adjacent = false;
  // BaselineSetInput::history: base_pairs hold the differences between successive history runs.
  bool from_history = false;
  double round_df = 0;  // degrees of freedom of round_var: runs × (fewest rounds − 1)
};

// which: 0 the median, −1 the lower median, +1 the upper (equal for an odd count).
double median_by(std::vector<double> v, int which) {
  if (which == 0) return median_of(v);
  std::sort(v.begin(), v.end());
  return v[which < 0 ? (v.size() - 1) / 2 : v.size() / 2];
}

double mean_round_var(const std::vector<std::vector<double>>& base_var, const std::vector<std::vector<double>>& next_var, std::size_t p) {
  double sum = 0;
  std::size_t n = 0;
  for (const auto* side : {&base_var, &next_var}) {
    for (const auto& run : *side) {
      if (p < run.size()) {
        sum += run[p];
        ++n;
      }
    }
  }
  return n == 0 ? 0.0 : sum / static_cast<double>(n);
}

// The baseline pair differences with both signs: the null is symmetric by construction.
std::vector<double> both_signs(const std::vector<double>& pairs) {
  std::vector<double> d;
  for (double x : pairs) {
    d.push_back(x);
    d.push_back(-x);
  }
  return d;
}

double robust_sigma_of_pairs(const std::vector<double>& pairs) {
  std::vector<double> a;
  for (double x : pairs) a.push_back(std::fabs(x));
  return a.empty() ? 0.0 : kMadToSigma * median_of(a) / std::numbers::sqrt2;
}

// The whole run's sigma: a baseline that moved as a whole is the evidence that whole runs move,
// so it must widen the noise rather than be set aside as an outlier (which the robust scale
// does, and a tail fitted to a handful of runs then over-corrects); the root mean square of the
// pair differences counts it, the robust scale still holds when the runs agree.
double whole_run_sigma_of_pairs(const std::vector<double>& pairs) {
  double sum = 0;
  for (double x : pairs) sum += x * x;
  const double rms = pairs.empty() ? 0.0 : std::sqrt(sum / static_cast<double>(pairs.size()));
  return std::max(robust_sigma_of_pairs(pairs), rms / std::numbers::sqrt2);
}

SetVerdict decide(const UnitFinding& u, const SetOptions& o) {
  const double floor = std::log1p(o.threshold);
  if (u.effect > floor) return u.effect_slow > floor && u.q_slower <= o.alpha ? SetVerdict::regressed : SetVerdict::inconclusive;
  if (u.effect < -floor) return u.effect_fast < -floor && u.q_faster <= o.alpha ? SetVerdict::improved : SetVerdict::inconclusive;
  // Within the floor, but from runs that vary by more than the floor itself: no evidence either way.
  return u.noise > floor ? SetVerdict::inconclusive : SetVerdict::unchanged;
}

// The smallest effect above `floor` whose p-value (decreasing in the effect) is at most `alpha`,
// by bisection on the log scale; +inf when even a 1000-fold slowdown is not.
template <class PValue>
double detectable_slowdown(const PValue& p_value, double floor, double alpha) {
  constexpr double kLargest = 6.907755278982137;  // log(1000)
  if (p_value(floor) <= alpha) return floor;
  if (p_value(kLargest) > alpha) return INFINITY;
  double low = floor, high = kLargest;
  for (int i = 0; i < 60 && high - low > 1e-6; ++i) {
    const double mid = 0.5 * (low + high);
    (p_value(mid) <= alpha ? high : low) = mid;
  }
  return high;
}

// Judges the units of one kind: pooled noise, shrinkage, tail, p-values, BH, verdicts.
void judge_kind(std::vector<UnitFinding*>& units, const std::vector<UnitValues>& values, std::size_t m, std::size_t k, const SetOptions& o,
                double& tail_nu) {
  if (units.empty()) return;
  const std::size_t adjacent = values.front().adjacent;
  const bool noise_from_adjacent = values.front().noise_from_adjacent;
  const bool from_history = values.front().from_history;
  // How many differences a unit's own sigma rests on: its own count, since the history steps
  // left out as state changes are decided per timing mode and the units of one kind span both.
  const auto pairs_of = [&](std::size_t u) {
    return noise_from_adjacent || from_history ? static_cast<double>(values[u].base_pairs.size())
                                               : static_cast<double>(m) * static_cast<double>(m - 1) / 2;
  };
  // The whole run has one value per baseline run: m − 1 contrasts, too few to fit a tail to, and
  // its pair differences are not independent (one run that jumped is in m − 1 of them).
  const bool whole_run = units.front()->kind == UnitKind::run;
  // From adjacent or successive differences, a run that jumped as a whole is in one or two of
  // them, whose median it barely moves: the robust scale is the right one there.
  const auto sigma_of = whole_run && !noise_from_adjacent && !from_history ? whole_run_sigma_of_pairs : robust_sigma_of_pairs;
  // Interleaved, below the whole run: the effect is a median of adjacent differences, judged by
  // its own spread rather than by how single baseline differences jump (see below).
  const bool median_of_adjacent = adjacent > 0 && !whole_run;
  // Only single differences are judged by a fitted tail; the whole run and the interleaved
  // medians are not.
  const bool fit_tails = !whole_run && !median_of_adjacent;
  // The kind's pooled noise: the scale of all its units' baseline differences.
  std::vector<double> all;
  for (const auto& v : values) all.insert(all.end(), v.base_pairs.begin(), v.base_pairs.end());
  const double pooled = sigma_of(all);
  for (std::size_t u = 0; u < units.size(); ++u) {
    auto& f = *units[u];
    f.own_sigma = sigma_of(values[u].base_pairs);
    const double pairs = pairs_of(u);
    const double shrunk = pairs + o.prior_pairs > 0
                              ? std::sqrt((pairs * f.own_sigma * f.own_sigma + o.prior_pairs * pooled * pooled) / (pairs + o.prior_pairs))
                              : 0.0;
    f.round_sigma = std::sqrt(values[u].round_var);
    f.sigma = std::max(shrunk, f.round_sigma);
    // How well sigma is known: the pool counts as prior_pairs observations beside the unit's own
    // m − 1 contrasts (the conjugate normal / scaled-inverse-chi-square update), so the p-value
    // is a t with (m − 1) + prior_pairs degrees of freedom. A sigma from three baselines is
    // itself uncertain, and a normal tail would take it as exact.
    f.df = (from_history ? pairs : static_cast<double>(m) - 1) + o.prior_pairs;
    // The whole run is the exception: its sigma rests on the m − 1 contrasts of the baselines'
    // shifts alone, and a t with two degrees of freedom would need a shift of twenty sigmas.
    // Its false alarms are held by the threshold instead (an honest run drifting as a whole
    // by more than the floor is what the baselines must show, and then sigma is large).
    if (whole_run && !from_history) f.df = 0;
    // Interleaved, a slow spell moves both runs of an adjacent pair and cancels, and what is
    // left of a point's noise is mostly the run's own: measured, a point's spread between
    // adjacent launches is 0.93 times (median over 42 points) what its rounds estimate
    // (docs/report.md, "2026-12-04 (evening): points under interleaving"). The rounds see that
    // noise in all 2k + 1 runs, the baseline pairs see it plus the spells' per-point patterns in
    // m − 1 contrasts: the two variance estimates are pooled by their degrees of freedom (the
    // larger of them, the rule above, would let the spells the pairing cancelled back in), and
    // so are their dfs.
    // A history's successive differences already hold the rounds' noise (its runs had rounds
    // too); its sigma stands alone, floored by today's rounds above.
    if (median_of_adjacent && values[u].round_df > 0 && !from_history) {
      const double rounds_df = values[u].round_df;
      f.sigma = std::sqrt((f.df * shrunk * shrunk + rounds_df * values[u].round_var) / (f.df + rounds_df));
      f.df += rounds_df;
    }
  }
  // How heavy the kind's tail is: its baseline differences standardised by their units' sigma.
  std::vector<double> standardised;
  for (std::size_t u = 0; fit_tails && u < units.size(); ++u) {
    if (units[u]->sigma <= 0) continue;
    for (double d : both_signs(values[u].base_pairs)) standardised.push_back(d / (std::numbers::sqrt2 * units[u]->sigma));
  }
  Scatter tail;  // normal unless the differences show otherwise
  if (standardised.size() >= kTailPoints) {
    const Scatter fitted = run_to_run_scatter(standardised, kTailPoints);
    tail.tail_nu = fitted.tail_nu;
    tail.tail_scale = fitted.tail_scale;
  }
  tail_nu = tail.tail_nu;
  // How any unit of the level jumps between honest runs: the baseline differences in units of
  // the level's pooled sigma, and the tail they show. Standardising each unit by its own sigma
  // hides a machine where a few points jump by 100x at random (their sigma absorbs it): on
  // such a machine a jump in a point whose baselines happened to be quiet is no evidence.
  Scatter level_tail;
  if (fit_tails && pooled > 0) {
    std::vector<double> by_pool;
    for (const auto& v : values) {
      for (double d : both_signs(v.base_pairs)) by_pool.push_back(d / (std::numbers::sqrt2 * pooled));
    }
    if (by_pool.size() >= kTailPoints) {
      const Scatter fitted = run_to_run_scatter(by_pool, kTailPoints);
      level_tail.tail_nu = fitted.tail_nu;
      level_tail.tail_scale = fitted.tail_scale;
    }
  }
  // Evidence must stand out twice: against the unit's own noise (the heavier of the fitted tail
  // and the t of its degrees of freedom), and against how the level's units jump.
  if (level_tail.tail_nu > 0 && (tail_nu <= 0 || level_tail.tail_nu < tail_nu)) tail_nu = level_tail.tail_nu;
  // Interleaved: one run's jump at a point moves the adjacent differences it is in, and the
  // effect only moves past x when AdjacentOrder::above of them do, so at least `runs_needed`
  // runs must have jumped that far at that point (adjacent_order). How often a run jumps that far
  // is half of how often the level's baseline differences did (either of their two runs),
  // counted: a tail fitted to them is either too light far out (a machine where 5% of the
  // points jump 100-fold) or, fitted between 2.5 and 8 sigmas, too heavy to let any median
  // through. Any `runs_needed` of the m + k runs (a union bound). "That far" is in units of the
  // unit's rounds sigma, which a jump of a whole run at a point does not widen (its baseline
  // pairs' sigma would absorb the jump), or of the level's pooled sigma without rounds.
  const std::size_t runs_needed = values.front().order.runs;
  const auto jump_scale = [&](std::size_t u) { return units[u]->round_sigma > 0 ? units[u]->round_sigma : pooled; };
  std::vector<double> jumps;  // |baseline difference| / jump_scale, over the level
  for (std::size_t u = 0; median_of_adjacent && u < units.size(); ++u) {
    for (double d : values[u].base_pairs) jumps.push_back(jump_scale(u) > 0 ? std::fabs(d) / jump_scale(u) : INFINITY);
  }
  const auto jumps_upper_tail = [&](double effect, double scale) {
    const double at = scale > 0 ? effect / scale : INFINITY;
    const auto beyond = std::count_if(jumps.begin(), jumps.end(), [at](double j) { return j > at; });
    const double q = jumps.empty() ? 0.0 : 0.5 * static_cast<double>(beyond) / static_cast<double>(jumps.size());
    const auto runs = static_cast<double>(m + k), r = static_cast<double>(runs_needed);
    const double ways = std::exp(std::lgamma(runs + 1) - std::lgamma(r + 1) - std::lgamma(runs - r + 1));
    return std::min(1.0, ways * std::pow(q, r));
  };
  // Unit u's p-value for `effect`; `factor` turns one run's sigma into the effect's standard deviation.
  const auto p_of = [&](double effect, std::size_t u, double factor, double sign) {
    const double noise = units[u]->sigma * factor, df = units[u]->df;
    if (!(noise > 0)) return sign * effect > 0 ? 0.0 : 1.0;  // baselines that never moved: any move stands out
    const double z = sign * effect / noise;
    double p = scatter_upper_tail(tail, z);
    if (df > 0) p = std::max(p, student_t_upper_tail(z, df));
    if (median_of_adjacent) return std::max(p, jumps_upper_tail(sign * effect, jump_scale(u)));
    if (pooled > 0) p = std::max(p, scatter_upper_tail(level_tail, sign * effect / (pooled * factor)));
    return p;
  };
  const double combined_factor = std::sqrt(median_variance_factor(m) + median_variance_factor(k));
  const double single_factor = std::sqrt(median_variance_factor(m) + 1.0);
  const double floor = std::log1p(o.threshold);
  std::vector<double> ps, pf;
  for (std::size_t u = 0; u < units.size(); ++u) {
    auto& f = *units[u];
    f.effect = values[u].effect;
    f.effect_slow = values[u].effect_slow;
    f.effect_fast = values[u].effect_fast;
    f.noise = f.sigma * combined_factor;
    f.z = f.noise > 0 ? f.effect / f.noise : (f.effect > 0 ? INFINITY : f.effect < 0 ? -INFINITY : 0.0);
    f.p_slower = p_of(f.effect_slow, u, combined_factor, 1);
    f.p_faster = p_of(f.effect_fast, u, combined_factor, -1);
    ps.push_back(f.p_slower);
    pf.push_back(f.p_faster);
    f.detectable =
        detectable_slowdown([&](double e) { return p_of(e, u, combined_factor, 1); }, floor, o.alpha / static_cast<double>(units.size()));
  }
  const auto qs = benjamini_hochberg(ps), qf = benjamini_hochberg(pf);
  for (std::size_t u = 0; u < units.size(); ++u) {
    units[u]->q_slower = qs[u];
    units[u]->q_faster = qf[u];
    units[u]->verdict = decide(*units[u], o);
  }
  // Each new run on its own, for --confirm: would it have found the regression alone?
  for (std::size_t j = 0; j < k; ++j) {
    std::vector<double> p;
    for (std::size_t u = 0; u < units.size(); ++u) p.push_back(p_of(values[u].effect_per_new[j], u, single_factor, 1));
    const auto q = benjamini_hochberg(p);
    for (std::size_t u = 0; u < units.size(); ++u) {
      if (values[u].effect_per_new[j] > floor && q[u] <= o.alpha) ++units[u]->runs_slower;
    }
  }
  if (o.confirm) {
    for (auto* f : units) {
      if (f->verdict == SetVerdict::regressed && f->runs_slower < 2) {
        f->verdict = SetVerdict::inconclusive;
        f->unconfirmed = true;
      }
    }
  }
}

}  // namespace

const char* to_string(SetVerdict v) {
  switch (v) {
    case SetVerdict::unchanged: return "unchanged";
    case SetVerdict::regressed: return "regressed";
    case SetVerdict::improved: return "improved";
    case SetVerdict::inconclusive: return "inconclusive";
  }
  return "unchanged";
}

const char* to_string(UnitKind k) {
  switch (k) {
    case UnitKind::point: return "point";
    case UnitKind::op_size: return "op_size";
    case UnitKind::collective: return "collective";
    case UnitKind::dimension: return "dimension";
    case UnitKind::run: return "run";
  }
  return "point";
}

double pairwise_sigma(const std::vector<double>& values) {
  std::vector<double> d;
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (std::size_t j = i + 1; j < values.size(); ++j) d.push_back(values[i] - values[j]);
  }
  return robust_sigma_of_pairs(d);
}

double median_variance_factor(std::size_t n) {
  if (n == 0) return 0;
  if (n <= 2) return 1.0 / static_cast<double>(n);
  return std::numbers::pi / (2.0 * static_cast<double>(n));
}

double round_variance(const std::vector<double>& log_round_medians) {
  if (log_round_medians.size() < 2) return 0;
  const double c = median_of(log_round_medians);
  std::vector<double> dev;
  for (double v : log_round_medians) dev.push_back(std::fabs(v - c));
  const double s = kMadToSigma * median_of(dev);
  return s * s * median_variance_factor(log_round_medians.size());
}

AdjacentOrder adjacent_order(const std::vector<std::pair<std::size_t, std::size_t>>& beside) {
  if (beside.empty()) return {};
  // How many differences each run is in, most first (new runs and baselines apart: the indices
  // are each side's own).
  std::map<std::pair<int, std::size_t>, std::size_t> in_pairs;
  for (const auto& [j, i] : beside) {
    ++in_pairs[{1, j}];
    ++in_pairs[{0, i}];
  }
  std::vector<std::size_t> counts;
  for (const auto& [run, count] : in_pairs) counts.push_back(count);
  std::sort(counts.rbegin(), counts.rend());
  const auto runs_for = [&counts](std::size_t differences) {
    std::size_t runs = 0, covered = 0;
    while (covered < differences && runs < counts.size()) covered += counts[runs++];
    return runs;
  };
  const std::size_t pairs = beside.size(), lower_median = pairs - (pairs - 1) / 2;
  AdjacentOrder o{lower_median, runs_for(lower_median)};
  if (lower_median < pairs && runs_for(lower_median + 1) > o.runs) o = {lower_median + 1, runs_for(lower_median + 1)};
  return o;
}

int BaselineSetResult::count(UnitKind kind, SetVerdict v) const {
  const auto& list = kind == UnitKind::point ? points : families;
  return static_cast<int>(std::count_if(list.begin(), list.end(), [&](const UnitFinding& u) { return u.kind == kind && u.verdict == v; }));
}

bool BaselineSetResult::regressed() const {
  const auto bad = [](const UnitFinding& u) { return u.verdict == SetVerdict::regressed; };
  return std::any_of(points.begin(), points.end(), bad) || std::any_of(families.begin(), families.end(), bad);
}

LevelReach BaselineSetResult::reach(UnitKind kind) const {
  std::vector<double> called, found;
  for (const auto* list : {&points, &families}) {
    for (const auto& u : *list) {
      if (u.kind != kind) continue;
      called.push_back(u.detectable);
      found.push_back(u.detectable + 1.6448536269514722 * u.noise);
    }
  }
  LevelReach r;
  r.units = static_cast<int>(called.size());
  if (called.empty()) return r;
  // median_of averages the middle two: with an infinite one the average is infinite, as it should be.
  r.called = median_of(called);
  r.found_95 = median_of(found);
  return r;
}

BaselineSetResult judge_baseline_set(const BaselineSetInput& in, const SetOptions& o) {
  BaselineSetResult r;
  const std::size_t m = in.base.size(), k = in.next.size();
  const std::size_t points = m == 0 ? 0 : in.base.front().size();
  std::vector<const std::vector<double>*> runs;  // baselines first, then the new runs
  for (const auto& run : in.base) runs.push_back(&run);
  for (const auto& run : in.next) runs.push_back(&run);
  const std::size_t n = runs.size();
  for (const auto& run : in.history) runs.push_back(&run);  // after the n runs judged
  const std::size_t history_steps = in.history.size() < 2 ? 0 : in.history.size() - 1;
  // The median over `members` of run a's log time less run b's, each point less `less(p)`.
  const auto difference = [&runs](const std::vector<std::size_t>& members, std::size_t a, std::size_t b, int which, const auto& less) {
    std::vector<double> d;
    for (auto p : members) d.push_back((*runs[a])[p] - (*runs[b])[p] - less(p));
    return median_by(std::move(d), which);
  };
  const auto nothing = [](std::size_t) { return 0.0; };
  // Each run pair's whole-run shift, per point (the shift of the run family the point is in).
  std::vector<std::vector<double>> shift(points, std::vector<double>(n * n, 0.0));
  for (const auto& def : in.families) {
    if (def.kind != UnitKind::run) continue;
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t b = 0; b < n; ++b) {
        if (a == b) continue;
        const double s = difference(def.members, a, b, 0, nothing);
        for (auto p : def.members) shift[p][a * n + b] = s;
      }
    }
  }
  // The same for each pair of successive history runs (h + 1 against h). A step in which the
  // whole run moved far beyond its usual steps is the machine changing state (a slow or fast
  // spell starting or ending, docs/report.md "Noise from the gate's history"): the spells move
  // sizes by different amounts, so below the whole run such a step is a pattern of 20-40% moves
  // that an interleaved comparison cancels (both runs of an adjacent pair share the spell, and
  // a boundary inside the window spoils one adjacent difference of 2k). Its differences are
  // left out of every unit's noise and jumps, as compare sets aside baselines in another state.
  std::vector<std::vector<double>> history_shift(points, std::vector<double>(history_steps, 0.0));
  std::vector<std::vector<bool>> state_change(points, std::vector<bool>(history_steps, false));
  for (const auto& def : in.families) {
    if (def.kind != UnitKind::run) continue;
    std::vector<double> steps;
    for (std::size_t h = 0; h < history_steps; ++h) steps.push_back(difference(def.members, n + h + 1, n + h, 0, nothing));
    const double usual = std::numbers::sqrt2 * robust_sigma_of_pairs(steps);  // one step's sigma
    int changes = 0;
    for (std::size_t h = 0; h < history_steps; ++h) {
      const bool change = std::fabs(steps[h]) > kStateChangeSigmas * usual;
      changes += change ? 1 : 0;
      for (auto p : def.members) {
        history_shift[p][h] = steps[h];
        state_change[p][h] = change;
      }
    }
    r.history_state_changes = std::max(r.history_state_changes, changes);
  }
  const AdjacentOrder order = adjacent_order(in.beside);
  // A unit's values from its pairwise differences; below the whole run less the run's shift.
  const auto values_of = [&](const std::vector<std::size_t>& members, bool whole) {
    UnitValues v;
    // Below the whole run each member less its own run's shift: a family may span timing modes
    // (one op at one size everywhere), whose runs shift apart.
    const auto d = [&](std::size_t a, std::size_t b, int which = 0) {
      return whole ? difference(members, a, b, which, nothing)
                   : difference(members, a, b, which, [&](std::size_t p) { return shift[p][a * n + b]; });
    };
    // Interleaved, the whole run's noise is what is left of its adjacent differences once the
    // change is taken out (one difference's spread, in a baseline pair's units). Below the whole
    // run 2k differences per point are too few to measure a spread from (docs/report.md,
    // "Interleaved launches"): the baseline pairs and the rounds supply it (judge_kind).
    v.adjacent = in.beside.size();
    v.from_history = history_steps > 0;
    v.noise_from_adjacent = whole && v.adjacent > 0 && !v.from_history;
    for (std::size_t h = 0; h < history_steps; ++h) {
      if (std::any_of(members.begin(), members.end(), [&](std::size_t p) { return state_change[p][h]; })) continue;
      v.base_pairs.push_back(whole ? difference(members, n + h + 1, n + h, 0, nothing)
                                   : difference(members, n + h + 1, n + h, 0, [&](std::size_t p) { return history_shift[p][h]; }));
    }
    if (!v.noise_from_adjacent && !v.from_history) {
      for (std::size_t i = 0; i < m; ++i) {
        for (std::size_t j = i + 1; j < m; ++j) v.base_pairs.push_back(d(i, j));
      }
    }
    std::vector<double> all, low, high;
    if (in.beside.empty()) {
      for (std::size_t j = m; j < n; ++j) {
        std::vector<double> per;
        for (std::size_t i = 0; i < m; ++i) {
          all.push_back(d(j, i));
          high.push_back(d(j, i, 1));
          per.push_back(d(j, i, -1));
        }
        v.effect_per_new.push_back(median_of(per));
        low.insert(low.end(), per.begin(), per.end());
      }
    } else {  // interleaved: the adjacent (new, baseline) pairs only
      std::vector<std::vector<double>> per(k);
      for (const auto& [j, i] : in.beside) {
        all.push_back(d(m + j, i));
        high.push_back(d(m + j, i, 1));
        low.push_back(d(m + j, i, -1));
        per[j].push_back(low.back());
      }
      for (const auto& p : per) v.effect_per_new.push_back(p.empty() ? 0.0 : median_of(p));
    }
    v.effect = median_of(all);
    // Interleaved, slower must hold for more than half of the adjacent differences too (one
    // run that jumped at a point is in two of them, and their plain median would move halfway),
    // or for one more where that takes another run's jump (adjacent_order).
    if (v.adjacent > 0 && !whole) {
      v.order = order;
      std::sort(low.begin(), low.end());
      std::sort(high.begin(), high.end());
      v.effect_slow = low[low.size() - order.above];
      v.effect_fast = high[order.above - 1];
    } else {
      v.effect_slow = median_of(low);
      v.effect_fast = median_of(high);
    }
    if (v.noise_from_adjacent) {
      for (double x : all) v.base_pairs.push_back(x - v.effect);
    }
    double var = 0;
    for (auto p : members) var += mean_round_var(in.base_round_var, in.next_round_var, p);
    v.round_var = var / static_cast<double>(members.size()) * median_variance_factor(members.size());
    int fewest = members.empty() ? 0 : std::numeric_limits<int>::max();
    for (auto p : members) fewest = std::min(fewest, p < in.rounds.size() ? in.rounds[p] : 0);
    v.round_df = static_cast<double>(n) * std::max(fewest - 1, 0);
    return v;
  };

  // One exit status answers for every level: the false-alarm rate is split between the levels
  // present (Bonferroni), Benjamini–Hochberg within each.
  int levels = points > 0 ? 1 : 0;
  for (int kind = 1; kind < kUnitKinds; ++kind) {
    levels += std::any_of(in.families.begin(), in.families.end(), [kind](const FamilyDef& f) { return static_cast<int>(f.kind) == kind; })
                  ? 1
                  : 0;
  }
  SetOptions per_level = o;
  per_level.alpha = o.alpha / std::max(levels, 1);
  r.level_alpha = per_level.alpha;

  r.points.resize(points);
  std::vector<UnitFinding*> point_units;
  std::vector<UnitValues> point_values;
  for (std::size_t p = 0; p < points; ++p) {
    r.points[p].kind = UnitKind::point;
    r.points[p].index = p;
    point_units.push_back(&r.points[p]);
    point_values.push_back(values_of({p}, false));
  }
  judge_kind(point_units, point_values, m, k, per_level, r.tail_nu[0]);

  r.families.resize(in.families.size());
  for (int kind = 1; kind < kUnitKinds; ++kind) {
    std::vector<UnitFinding*> units;
    std::vector<UnitValues> values;
    for (std::size_t f = 0; f < in.families.size(); ++f) {
      const auto& def = in.families[f];
      if (static_cast<int>(def.kind) != kind || def.members.empty()) continue;
      r.families[f].kind = def.kind;
      r.families[f].index = f;
      units.push_back(&r.families[f]);
      values.push_back(values_of(def.members, def.kind == UnitKind::run));
    }
    judge_kind(units, values, m, k, per_level, r.tail_nu[kind]);
  }
  return r;
}

}  // namespace meshbench::analysis
