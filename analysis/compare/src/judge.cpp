#include "analysis/compare/judge.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>

#include "analysis/compare/regression_stats.hpp"
#include "analysis/compare/src/judge_decision.hpp"

namespace meshbench::analysis {

namespace {

using detail::decide_level;
using detail::detectable_slowdown;
using detail::median_by;

// How one level is judged, from the two choices a comparison makes (where the noise comes from,
// how the runs are paired: JudgeInput::history and ::beside) and whether the level is the
// whole run. Every difference between the forms of `compare BASE… -- NEW…` is one of these.
struct LevelRules {
  NoiseSource noise = NoiseSource::baseline_runs;
  Pairing pairing = Pairing::none;
  bool whole_run = false;
  // Interleaved, the whole run's noise is what is left of its adjacent differences once the
  // change is taken out. Below the whole run 2k differences per point are too few to measure a
  // spread from (docs/report.md, "Interleaved launches"): the baseline pairs and the rounds supply it.
  bool noise_from_adjacent() const { return whole_run && pairing == Pairing::interleaved && noise != NoiseSource::history; }
  // Interleaved, below the whole run: the effect is an order statistic of the adjacent differences,
  // judged by its own spread rather than by how single baseline differences jump.
  bool median_of_adjacent() const { return pairing == Pairing::interleaved && !whole_run; }
  // Only single differences are judged by a fitted tail; the whole run and the interleaved medians are not.
  bool fit_tails() const { return !whole_run && !median_of_adjacent(); }
  // The whole run's m − 1 contrasts between baselines launched apart: a run that jumped as a
  // whole must widen the noise (whole_run_sigma_of_pairs). From adjacent or successive
  // differences such a run is in one or two of them, whose median it barely moves: robust there.
  bool rms_scale() const { return whole_run && pairing == Pairing::none && noise != NoiseSource::history; }
};

// What one unit (a point or a family) is judged on, from differences between runs only: for
// runs a and b, D(a, b) = median over its points of (log t_a − log t_b), less the whole run's
// D(a, b) below the whole-run level. A difference of two runs needs no centre, so a baseline
// is never compared with a centre it is part of (which would shrink its spread).
struct UnitValues {
  // D(i, j) for the baseline pairs i < j; with a history, D between successive history runs;
  // interleaved, for the whole run, the adjacent differences around their median.
  std::vector<double> base_pairs;
  double effect = 0;  // median of D(new j, base i) over all such pairs (interleaved: the adjacent ones)
  // The same with D's lower (upper) median for an even number of points: slower (faster) must
  // hold for more than half of a family's points, not for two of four.
  double effect_slow = 0, effect_fast = 0;
  std::vector<double> effect_per_new;  // median over i of D_low(new j, base i), per new run
  std::vector<double> today_pairs;     // D(i, j) between this comparison's baselines, i < j
  // Interleaved, the whole run: its adjacent differences less their median.
  std::vector<double> adjacent_residuals;
  double round_var = 0;  // mean over the runs of the rounds' variance of this value
  double round_df = 0;   // degrees of freedom of round_var: runs × (fewest rounds − 1)
  AdjacentOrder order;   // interleaved, below the whole run: which difference the effect is
};

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

// A tail read from standardised differences once there are enough of them (normal otherwise).
Scatter fitted_tail(const std::vector<double>& standardised) {
  Scatter tail;
  if (standardised.size() >= kTailPoints) {
    const Scatter fitted = run_to_run_scatter(standardised, kTailPoints);
    tail.tail_nu = fitted.tail_nu;
    tail.tail_scale = fitted.tail_scale;
  }
  return tail;
}

// A unit's own one-run sigma and the number of differences it rests on.
double own_sigma(const UnitValues& v, const LevelRules& rules) {
  return rules.rms_scale() ? whole_run_sigma_of_pairs(v.base_pairs) : robust_sigma_of_pairs(v.base_pairs);
}

// The unit's own sigma shrunk towards the level's pooled one: the pool counts as prior_pairs
// differences beside the unit's own (the conjugate normal / scaled-inverse-chi-square update).
double shrunk_sigma(double own, double pairs, double pooled, const JudgeOptions& o) {
  return pairs + o.prior_pairs > 0 ? std::sqrt((pairs * own * own + o.prior_pairs * pooled * pooled) / (pairs + o.prior_pairs)) : 0.0;
}

// Noise from the baseline runs: each unit's m(m − 1)/2 baseline differences (interleaved, the
// whole run: its adjacent differences) shrunk towards the level's, floored by its rounds, with
// (m − 1) + prior_pairs degrees of freedom.
void sigma_from_baseline_runs(std::vector<UnitFinding*>& units, const std::vector<UnitValues>& values, std::size_t m,
                              const LevelRules& rules, const JudgeOptions& o, double pooled) {
  for (std::size_t u = 0; u < units.size(); ++u) {
    auto& f = *units[u];
    f.own_sigma = own_sigma(values[u], rules);
    const double pairs = rules.noise_from_adjacent() ? static_cast<double>(values[u].base_pairs.size())
                                                     : static_cast<double>(m) * static_cast<double>(m - 1) / 2;
    const double shrunk = shrunk_sigma(f.own_sigma, pairs, pooled, o);
    f.round_sigma = std::sqrt(values[u].round_var);
    f.sigma = std::max(shrunk, f.round_sigma);
    // A sigma from three baselines is itself uncertain: the p-value is a t with (m − 1) +
    // prior_pairs degrees of freedom.
    f.df = static_cast<double>(m) - 1 + o.prior_pairs;
    // The whole run's sigma rests on the m − 1 contrasts of the baselines' shifts alone, and a t
    // with two degrees of freedom would need a shift of twenty sigmas. Its false alarms are held
    // by the threshold instead (an honest run drifting as a whole by more than the floor is what
    // the baselines must show, and then sigma is large).
    if (rules.whole_run) f.df = 0;
    // Interleaved, a slow spell moves both runs of an adjacent pair and cancels, and what is left
    // of a point's noise is mostly the run's own, about what its rounds estimate (docs/report.md,
    // "Interleaved launches"). The two variance estimates are pooled by their degrees of freedom
    // (the larger of them would let the spells the pairing cancelled back in), and so are their dfs.
    if (rules.median_of_adjacent() && values[u].round_df > 0) {
      const double rounds_df = values[u].round_df;
      f.sigma = std::sqrt((f.df * shrunk * shrunk + rounds_df * values[u].round_var) / (f.df + rounds_df));
      f.df += rounds_df;
    }
  }
}

// Noise from a history: each unit's differences between successive history runs (less the
// whole-run jumps), shrunk towards the level's, with as many degrees of freedom as differences
// plus prior_pairs. Their steps hold the runs' rounds' noise already, so the rounds do not floor
// it (docs/report.md, "Noise from the gate's history").
void sigma_from_history(std::vector<UnitFinding*>& units, const std::vector<UnitValues>& values, const LevelRules& rules,
                        const JudgeOptions& o, double pooled) {
  for (std::size_t u = 0; u < units.size(); ++u) {
    auto& f = *units[u];
    f.own_sigma = own_sigma(values[u], rules);
    // Its own count: the steps left out as state changes are decided per timing mode, and the
    // units of one kind span both.
    const auto pairs = static_cast<double>(values[u].base_pairs.size());
    f.round_sigma = std::sqrt(values[u].round_var);
    f.sigma = shrunk_sigma(f.own_sigma, pairs, pooled, o);
    f.df = pairs + o.prior_pairs;
    // Interleaved, a history's noise holds while the machine's spells outlast a launch or two;
    // where today they flip from one launch to the next, the adjacent differences disagree, and
    // their spread is the noise.
    if (rules.whole_run && rules.pairing == Pairing::interleaved)
      f.sigma = std::max(f.sigma, robust_sigma_of_pairs(values[u].adjacent_residuals));
  }
}

// What every unit of a level is judged against besides its own sigma.
struct LevelNoise {
  double pooled = 0;  // one run's scale from all the level's baseline differences
  // The heavier of the tail of the units' differences standardised by their own sigma and the
  // tail of the level's differences in units of `pooled` (how any unit of the level jumps:
  // standardising by each unit's sigma hides a machine where a few points jump 100x at random).
  Scatter tail, level_tail;
  // Interleaved, below the whole run: |baseline difference| / the unit's jump scale, over the
  // level, and how many of the m + k runs must have jumped for the effect to move (adjacent_order).
  // The same from this comparison's baselines alone: the machine's spells last a few launches,
  // and one the history never saw shows in today's baselines first.
  std::vector<double> jumps, today_jumps;
  std::size_t runs = 0, runs_needed = 0;
};

// The jump scale of a unit: its rounds sigma, which a jump of a whole run at a point does not
// widen (its baseline pairs' sigma would absorb the jump), or the level's pooled sigma without rounds.
double jump_scale(const UnitFinding& u, double pooled) { return u.round_sigma > 0 ? u.round_sigma : pooled; }

LevelNoise level_noise(const std::vector<UnitFinding*>& units, const std::vector<UnitValues>& values, std::size_t runs,
                       const LevelRules& rules, double pooled, double& tail_nu) {
  LevelNoise n;
  n.pooled = pooled;
  n.runs = runs;
  n.runs_needed = values.front().order.runs;
  std::vector<double> standardised, by_pool;
  for (std::size_t u = 0; rules.fit_tails() && u < units.size(); ++u) {
    for (double d : both_signs(values[u].base_pairs)) {
      if (units[u]->sigma > 0) standardised.push_back(d / (std::numbers::sqrt2 * units[u]->sigma));
      if (pooled > 0) by_pool.push_back(d / (std::numbers::sqrt2 * pooled));
    }
  }
  n.tail = fitted_tail(standardised);
  n.level_tail = fitted_tail(by_pool);
  tail_nu = n.tail.tail_nu;
  // Evidence must stand out twice: against the unit's own noise and against how the level's units jump.
  if (n.level_tail.tail_nu > 0 && (tail_nu <= 0 || n.level_tail.tail_nu < tail_nu)) tail_nu = n.level_tail.tail_nu;
  for (std::size_t u = 0; rules.median_of_adjacent() && u < units.size(); ++u) {
    const double scale = jump_scale(*units[u], pooled);
    for (double d : values[u].base_pairs) n.jumps.push_back(scale > 0 ? std::fabs(d) / scale : INFINITY);
    for (double d : values[u].today_pairs) n.today_jumps.push_back(scale > 0 ? std::fabs(d) / scale : INFINITY);
  }
  return n;
}

// Interleaved: one run's jump at a point moves the adjacent differences it is in, and the effect
// only moves past x when AdjacentOrder::above of them do, so at least `runs_needed` runs must have
// jumped that far. How often a run jumps that far is half of how often the level's baseline
// differences did (either of their two runs), counted in the history and among today's
// baselines, whichever is more often: a fitted tail is either too light far
// out or, fitted between 2.5 and 8 sigmas, too heavy to let any median through. Any
// `runs_needed` of the m + k runs (a union bound).
double jumps_upper_tail(const LevelNoise& n, double effect, double scale) {
  const double at = scale > 0 ? effect / scale : INFINITY;
  // Half the share of differences beyond `at`: how often one run jumps that far.
  const auto rate = [at](const std::vector<double>& jumps) {
    const auto beyond = std::count_if(jumps.begin(), jumps.end(), [at](double j) { return j > at; });
    return jumps.empty() ? 0.0 : 0.5 * static_cast<double>(beyond) / static_cast<double>(jumps.size());
  };
  const double q = std::max(rate(n.jumps), rate(n.today_jumps));
  const auto runs = static_cast<double>(n.runs), r = static_cast<double>(n.runs_needed);
  const double ways = std::exp(std::lgamma(runs + 1) - std::lgamma(r + 1) - std::lgamma(runs - r + 1));
  return std::min(1.0, ways * std::pow(q, r));
}

// A unit's p-value for `effect` (sign +1: slower, −1: faster); `factor` turns one run's sigma
// into the effect's standard deviation.
double unit_p_value(const LevelNoise& n, const LevelRules& rules, const UnitFinding& u, double effect, double factor, double sign) {
  const double noise = u.sigma * factor;
  if (!(noise > 0)) return sign * effect > 0 ? 0.0 : 1.0;  // baselines that never moved: any move stands out
  const double z = sign * effect / noise;
  double p = scatter_upper_tail(n.tail, z);
  if (u.df > 0) p = std::max(p, student_t_upper_tail(z, u.df));
  if (rules.median_of_adjacent()) return std::max(p, jumps_upper_tail(n, sign * effect, jump_scale(u, n.pooled)));
  if (n.pooled > 0) p = std::max(p, scatter_upper_tail(n.level_tail, sign * effect / (n.pooled * factor)));
  return p;
}

// --confirm: in how many new runs, each on its own, each unit would have regressed.
void count_runs_slower(std::vector<UnitFinding*>& units, const std::vector<UnitValues>& values, std::size_t m, std::size_t k,
                       const LevelNoise& n, const LevelRules& rules, const JudgeOptions& o) {
  const double single_factor = std::sqrt(median_variance_factor(m) + 1.0), floor = o.floor();
  for (std::size_t j = 0; j < k; ++j) {
    std::vector<double> p;
    for (std::size_t u = 0; u < units.size(); ++u)
      p.push_back(unit_p_value(n, rules, *units[u], values[u].effect_per_new[j], single_factor, 1));
    const auto q = benjamini_hochberg(p);
    for (std::size_t u = 0; u < units.size(); ++u) {
      if (values[u].effect_per_new[j] > floor && q[u] <= o.alpha) ++units[u]->runs_slower;
    }
  }
  if (!o.confirm) return;
  for (auto* f : units) {
    if (f->verdict == Verdict::regressed && f->runs_slower < 2) {
      f->verdict = Verdict::inconclusive;
      f->unconfirmed = true;
    }
  }
}

// Judges the units of one level: sigmas, the level's noise, p-values, Benjamini–Hochberg, verdicts.
void judge_level(std::vector<UnitFinding*>& units, const std::vector<UnitValues>& values, std::size_t m, std::size_t k,
                 const LevelRules& rules, const JudgeOptions& o, double& tail_nu) {
  if (units.empty()) return;
  std::vector<double> all;
  for (const auto& v : values) all.insert(all.end(), v.base_pairs.begin(), v.base_pairs.end());
  const double pooled = rules.rms_scale() ? whole_run_sigma_of_pairs(all) : robust_sigma_of_pairs(all);
  if (rules.noise == NoiseSource::history) sigma_from_history(units, values, rules, o, pooled);
  else sigma_from_baseline_runs(units, values, m, rules, o, pooled);
  const LevelNoise noise = level_noise(units, values, m + k, rules, pooled, tail_nu);
  const double combined_factor = std::sqrt(median_variance_factor(m) + median_variance_factor(k));
  const double floor = o.floor();
  std::vector<double> ps, pf;
  for (std::size_t u = 0; u < units.size(); ++u) {
    auto& f = *units[u];
    f.effect = values[u].effect;
    f.effect_slow = values[u].effect_slow;
    f.effect_fast = values[u].effect_fast;
    f.noise = f.sigma * combined_factor;
    f.z = f.noise > 0 ? f.effect / f.noise : (f.effect > 0 ? INFINITY : f.effect < 0 ? -INFINITY : 0.0);
    f.p_slower = unit_p_value(noise, rules, f, f.effect_slow, combined_factor, 1);
    f.p_faster = unit_p_value(noise, rules, f, f.effect_fast, combined_factor, -1);
    ps.push_back(f.p_slower);
    pf.push_back(f.p_faster);
    const auto p_at = [&](double e) { return unit_p_value(noise, rules, f, e, combined_factor, 1); };
    f.detectable = detectable_slowdown(p_at, floor, o.alpha / static_cast<double>(units.size()));
  }
  decide_level(units, {{ps}, {pf}}, o);
  count_runs_slower(units, values, m, k, noise, rules, o);
}

}  // namespace

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

int JudgeResult::count(UnitKind kind, Verdict v) const {
  const auto& list = kind == UnitKind::point ? points : families;
  return static_cast<int>(std::count_if(list.begin(), list.end(), [&](const UnitFinding& u) { return u.kind == kind && u.verdict == v; }));
}

bool JudgeResult::regressed() const {
  const auto bad = [](const UnitFinding& u) { return u.verdict == Verdict::regressed; };
  return std::any_of(points.begin(), points.end(), bad) || std::any_of(families.begin(), families.end(), bad);
}

LevelReach JudgeResult::reach(UnitKind kind) const {
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

namespace {

// The differences between the runs of one comparison (the m baselines, the k new runs, then the
// history), and each unit's values from them.
class RunDifferences {
 public:
  explicit RunDifferences(const JudgeInput& in) : in_(in), m_(in.base.size()), k_(in.next.size()), order_(adjacent_order(in.beside)) {
    for (const auto& run : in.base) runs_.push_back(&run);
    for (const auto& run : in.next) runs_.push_back(&run);
    n_ = runs_.size();
    for (const auto& run : in.history) runs_.push_back(&run);  // after the n runs judged
    points_ = m_ == 0 ? 0 : in.base.front().size();
    steps_ = in.history.size() < 2 ? 0 : in.history.size() - 1;
    whole_run_shifts();
  }

  std::size_t points() const { return points_; }
  int history_jumps() const { return jumps_; }
  LevelRules rules(bool whole_run) const {
    return {steps_ > 0 ? NoiseSource::history : NoiseSource::baseline_runs, in_.beside.empty() ? Pairing::none : Pairing::interleaved,
            whole_run};
  }

  UnitValues values_of(const std::vector<std::size_t>& members, const LevelRules& rules) const {
    UnitValues v;
    for (std::size_t i = 0; i < m_; ++i) {
      for (std::size_t j = i + 1; j < m_; ++j) {
        if (rules.noise == NoiseSource::history && !whole_run_jump(members, i, j)) v.today_pairs.push_back(d(members, rules, i, j));
      }
    }
    history_pairs(members, rules, v);
    if (!rules.noise_from_adjacent() && rules.noise != NoiseSource::history) {
      for (std::size_t i = 0; i < m_; ++i) {
        for (std::size_t j = i + 1; j < m_; ++j) v.base_pairs.push_back(d(members, rules, i, j));
      }
    }
    effects(members, rules, v);
    double var = 0;
    for (auto p : members) var += mean_round_var(in_.base_round_var, in_.next_round_var, p);
    v.round_var = var / static_cast<double>(members.size()) * median_variance_factor(members.size());
    int fewest = members.empty() ? 0 : std::numeric_limits<int>::max();
    for (auto p : members) fewest = std::min(fewest, p < in_.rounds.size() ? in_.rounds[p] : 0);
    v.round_df = static_cast<double>(n_) * std::max(fewest - 1, 0);
    return v;
  }

 private:
  // The median over `members` of run a's log time less run b's, each point less `less(p)`.
  template <class Less>
  double difference(const std::vector<std::size_t>& members, std::size_t a, std::size_t b, int which, const Less& less) const {
    std::vector<double> out;
    for (auto p : members) out.push_back((*runs_[a])[p] - (*runs_[b])[p] - less(p));
    return median_by(std::move(out), which);
  }
  static double nothing(std::size_t) { return 0.0; }

  // D(a, b) of a unit: below the whole run each member less its own run's shift (a family may
  // span timing modes, whose runs shift apart).
  double d(const std::vector<std::size_t>& members, const LevelRules& rules, std::size_t a, std::size_t b, int which = 0) const {
    if (rules.whole_run) return difference(members, a, b, which, nothing);
    return difference(members, a, b, which, [&](std::size_t p) { return shift_[p][a * n_ + b]; });
  }

  // Each run pair's whole-run shift per point, and each successive history step's. A step in
  // which the whole run moved far beyond its usual steps is a whole-run jump (a slow or fast
  // spell of the machine starting or ending): the spells move sizes by different amounts, so below the
  // whole run such a step is a pattern of 20-40% moves that an interleaved comparison cancels.
  // Its differences are left out of every unit's noise, as compare sets aside baselines in
  // another state.
  void whole_run_shifts() {
    shift_.assign(points_, std::vector<double>(n_ * n_, 0.0));
    history_shift_.assign(points_, std::vector<double>(steps_, 0.0));
    state_change_.assign(points_, std::vector<bool>(steps_, false));
    usual_step_.assign(points_, INFINITY);
    for (const auto& def : in_.families) {
      if (def.kind != UnitKind::run) continue;
      for (std::size_t a = 0; a < n_; ++a) {
        for (std::size_t b = 0; b < n_; ++b) {
          const double s = a == b ? 0.0 : difference(def.members, a, b, 0, nothing);
          for (auto p : def.members) shift_[p][a * n_ + b] = s;
        }
      }
      std::vector<double> steps;
      for (std::size_t h = 0; h < steps_; ++h) steps.push_back(difference(def.members, n_ + h + 1, n_ + h, 0, nothing));
      const double usual = std::numbers::sqrt2 * robust_sigma_of_pairs(steps);  // one step's sigma
      for (auto p : def.members) usual_step_[p] = steps_ > 0 ? usual : INFINITY;
      int changes = 0;
      for (std::size_t h = 0; h < steps_; ++h) {
        const bool change = std::fabs(steps[h]) > kWholeRunJumpSigmas * usual;
        changes += change ? 1 : 0;
        for (auto p : def.members) {
          history_shift_[p][h] = steps[h];
          state_change_[p][h] = change;
        }
      }
      jumps_ = std::max(jumps_, changes);
    }
  }

  // Whether the whole run moved between runs a and b as it does across a history's whole-run
  // jump: such a pair of baselines straddles a spell, which the pairing cancels.
  bool whole_run_jump(const std::vector<std::size_t>& members, std::size_t a, std::size_t b) const {
    return std::any_of(members.begin(), members.end(),
                       [&](std::size_t p) { return std::fabs(shift_[p][a * n_ + b]) > kWholeRunJumpSigmas * usual_step_[p]; });
  }

  // A history's successive differences, less the steps where the machine changed state.
  void history_pairs(const std::vector<std::size_t>& members, const LevelRules& rules, UnitValues& v) const {
    for (std::size_t h = 0; h < steps_; ++h) {
      if (std::any_of(members.begin(), members.end(), [&](std::size_t p) { return state_change_[p][h]; })) continue;
      v.base_pairs.push_back(rules.whole_run
                                 ? difference(members, n_ + h + 1, n_ + h, 0, nothing)
                                 : difference(members, n_ + h + 1, n_ + h, 0, [&](std::size_t p) { return history_shift_[p][h]; }));
    }
  }

  // The effect: every new run against every baseline, or interleaved the adjacent pairs only.
  void effects(const std::vector<std::size_t>& members, const LevelRules& rules, UnitValues& v) const {
    std::vector<double> all, low, high;
    if (rules.pairing == Pairing::none) {
      for (std::size_t j = m_; j < n_; ++j) {
        std::vector<double> per;
        for (std::size_t i = 0; i < m_; ++i) {
          all.push_back(d(members, rules, j, i));
          high.push_back(d(members, rules, j, i, 1));
          per.push_back(d(members, rules, j, i, -1));
        }
        v.effect_per_new.push_back(median_of(per));
        low.insert(low.end(), per.begin(), per.end());
      }
    } else {
      std::vector<std::vector<double>> per(k_);
      for (const auto& [j, i] : in_.beside) {
        all.push_back(d(members, rules, m_ + j, i));
        high.push_back(d(members, rules, m_ + j, i, 1));
        low.push_back(d(members, rules, m_ + j, i, -1));
        per[j].push_back(low.back());
      }
      for (const auto& p : per) v.effect_per_new.push_back(p.empty() ? 0.0 : median_of(p));
    }
    v.effect = median_of(all);
    // Interleaved, slower must hold for more than half of the adjacent differences too (one run
    // that jumped at a point is in two of them, and their plain median would move halfway), or
    // for one more where that takes another run's jump (adjacent_order).
    if (rules.median_of_adjacent()) {
      v.order = order_;
      std::sort(low.begin(), low.end());
      std::sort(high.begin(), high.end());
      v.effect_slow = low[low.size() - order_.above];
      v.effect_fast = high[order_.above - 1];
    } else {
      v.effect_slow = median_of(low);
      v.effect_fast = median_of(high);
    }
    if (rules.whole_run && rules.pairing == Pairing::interleaved) {
      for (double x : all) v.adjacent_residuals.push_back(x - v.effect);
    }
    if (rules.noise_from_adjacent()) v.base_pairs = v.adjacent_residuals;
  }

  const JudgeInput& in_;
  std::size_t m_, k_, n_ = 0, points_ = 0, steps_ = 0;
  AdjacentOrder order_;
  std::vector<const std::vector<double>*> runs_;  // baselines, new runs, history
  std::vector<std::vector<double>> shift_, history_shift_;
  std::vector<std::vector<bool>> state_change_;
  std::vector<double> usual_step_;  // per point, one history step's whole-run sigma (+inf without history)
  int jumps_ = 0;
};

}  // namespace

NoiseSource noise_source(const JudgeInput& in) {
  if (in.history.size() >= 2) return NoiseSource::history;
  // One run a side, rounds or not: the rounds measure each run's own noise, not how runs differ,
  // and alone they call most honest pairs regressed (docs/report.md, "The judge").
  if (in.base.size() == 1 && in.next.size() == 1) return NoiseSource::points;
  return NoiseSource::baseline_runs;
}

namespace {

// Noise from runs: each unit's differences between the baseline runs (and their rounds), or
// between successive runs of the history.
void judge_from_runs(const JudgeInput& in, const JudgeOptions& per_level, JudgeResult& r) {
  const RunDifferences runs(in);
  r.history_jumps = runs.history_jumps();
  const std::size_t m = in.base.size(), k = in.next.size(), points = runs.points();
  r.points.resize(points);
  std::vector<UnitFinding*> point_units;
  std::vector<UnitValues> point_values;
  for (std::size_t p = 0; p < points; ++p) {
    r.points[p].kind = UnitKind::point;
    r.points[p].index = p;
    point_units.push_back(&r.points[p]);
    point_values.push_back(runs.values_of({p}, runs.rules(false)));
  }
  judge_level(point_units, point_values, m, k, runs.rules(false), per_level, r.tail_nu[0]);

  r.families.resize(in.families.size());
  for (int kind = 1; kind < kUnitKinds; ++kind) {
    const LevelRules rules = runs.rules(kind == static_cast<int>(UnitKind::run));
    std::vector<UnitFinding*> units;
    std::vector<UnitValues> values;
    for (std::size_t f = 0; f < in.families.size(); ++f) {
      const auto& def = in.families[f];
      if (static_cast<int>(def.kind) != kind || def.members.empty()) continue;
      r.families[f].kind = def.kind;
      r.families[f].index = f;
      units.push_back(&r.families[f]);
      values.push_back(runs.values_of(def.members, rules));
    }
    judge_level(units, values, m, k, rules, per_level, r.tail_nu[kind]);
  }
}

}  // namespace

JudgeResult judge(const JudgeInput& in, const JudgeOptions& o) {
  JudgeResult r;
  const std::size_t points = in.base.empty() ? 0 : in.base.front().size();
  // One exit status answers for every level: the false-alarm rate is split between the levels
  // present (Bonferroni), Benjamini–Hochberg within each.
  int levels = points > 0 ? 1 : 0;
  for (int kind = 1; kind < kUnitKinds; ++kind) {
    levels += std::any_of(in.families.begin(), in.families.end(), [kind](const FamilyDef& f) { return static_cast<int>(f.kind) == kind; })
                  ? 1
                  : 0;
  }
  JudgeOptions per_level = o;
  per_level.alpha = o.alpha / std::max(levels, 1);
  r.level_alpha = per_level.alpha;
  if (noise_source(in) == NoiseSource::points) detail::judge_from_points(in, per_level, r);
  else judge_from_runs(in, per_level, r);
  return r;
}

}  // namespace meshbench::analysis
