// The baseline-set statistics on seeded synthetic runs with known answers: what is planted is
// found, honest reruns are left alone, and too much noise gives "inconclusive".
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "analysis/compare/judge.hpp"
#include "analysis/compare/regression_stats.hpp"

namespace meshbench::analysis {
namespace {

// Normal draws from a fully specified generator (std::normal_distribution may differ between
// standard libraries; Box–Muller on mt19937_64 does not).
class Normal {
 public:
  explicit Normal(std::uint64_t seed) : g_(seed) {}
  double operator()() {
    const double u1 = (static_cast<double>(g_() >> 11) + 0.5) / 9007199254740992.0;
    const double u2 = static_cast<double>(g_() >> 11) / 9007199254740992.0;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2);
  }

 private:
  std::mt19937_64 g_;
};

// 2 mappings × 2 dims × 3 ops × 5 sizes = 60 points. Each run: log time = the point's true
// value + a run-wide shift (sd `run_sd`) + the point's own noise (sd `point_sd`).
constexpr int kOps = 3, kSizes = 5, kDims = 2, kMappings = 2;
constexpr std::size_t kPoints = kOps * kSizes * kDims * kMappings;
std::size_t point_of(int mapping, int dim, int op, int size) {
  return static_cast<std::size_t>(((mapping * kDims + dim) * kOps + op) * kSizes + size);
}

std::vector<FamilyDef> families() {
  std::vector<FamilyDef> out;
  for (int op = 0; op < kOps; ++op) {
    for (int size = 0; size < kSizes; ++size) {
      FamilyDef f{UnitKind::op_size, {}};
      for (int m = 0; m < kMappings; ++m) {
        for (int d = 0; d < kDims; ++d) f.members.push_back(point_of(m, d, op, size));
      }
      out.push_back(f);
    }
  }
  for (int d = 0; d < kDims; ++d) {
    FamilyDef dim{UnitKind::dimension, {}};
    for (int op = 0; op < kOps; ++op) {
      FamilyDef f{UnitKind::collective, {}};
      for (int m = 0; m < kMappings; ++m) {
        for (int size = 0; size < kSizes; ++size) f.members.push_back(point_of(m, d, op, size));
      }
      dim.members.insert(dim.members.end(), f.members.begin(), f.members.end());
      out.push_back(f);
    }
    out.push_back(dim);
  }
  FamilyDef run{UnitKind::run, {}};
  for (std::size_t p = 0; p < kPoints; ++p) run.members.push_back(p);
  out.push_back(run);
  return out;
}

struct Synth {
  double run_sd = 0.01, point_sd = 0.03;
  double jump_rate = 0, jump = 1;  // a point jumps `jump` times slower with this probability (a loaded machine)
  std::vector<double> truth;
  Normal normal;
  explicit Synth(std::uint64_t seed) : normal(seed) {
    for (std::size_t p = 0; p < kPoints; ++p) truth.push_back(std::log(10.0 + 7.0 * static_cast<double>(p)));
  }
  std::vector<double> run(double whole = 1.0, std::size_t planted = kPoints, double factor = 1.0) {
    const double shift = run_sd * normal();
    std::vector<double> out;
    for (std::size_t p = 0; p < kPoints; ++p)
      out.push_back(truth[p] + shift + point_sd * normal() + std::log(whole) + (p == planted ? std::log(factor) : 0));
    for (auto& v : out) {
      if (jump_rate > 0 && 0.5 * (1 + std::erf(normal() / std::numbers::sqrt2)) < jump_rate) v += std::log(jump);  // Φ(Z) is uniform
    }
    return out;
  }
};

JudgeInput input(Synth& s, int baselines, const std::vector<std::vector<double>>& next) {
  JudgeInput in;
  for (int i = 0; i < baselines; ++i) in.base.push_back(s.run());
  in.next = next;
  in.families = families();
  return in;
}

const UnitFinding& run_finding(const JudgeResult& r) {
  for (const auto& f : r.families) {
    if (f.kind == UnitKind::run) return f;
  }
  throw std::logic_error("no run family");
}

TEST(BaselineSetStats, PairwiseSigmaIsTheRobustScaleOfPairDifferences) {
  // |differences| 1, 3, 2: median 2, one run's sd 1.4826 · 2 / √2.
  EXPECT_NEAR(pairwise_sigma({0, 1, 3}), 1.482602218505602 * 2 / std::numbers::sqrt2, 1e-12);
  EXPECT_EQ(pairwise_sigma({5}), 0.0);
  // Unbiased for normal data in the large-sample limit: 2000 draws with sd 0.03.
  Normal n(7);
  std::vector<double> v;
  for (int i = 0; i < 2000; ++i) v.push_back(0.03 * n());
  EXPECT_NEAR(pairwise_sigma(v), 0.03, 0.0015);
}

TEST(BaselineSetStats, MedianVarianceFactorAndRoundVariance) {
  EXPECT_DOUBLE_EQ(median_variance_factor(1), 1.0);
  EXPECT_DOUBLE_EQ(median_variance_factor(2), 0.5);
  EXPECT_NEAR(median_variance_factor(10), std::numbers::pi / 20, 1e-15);
  // Round medians e^{0, 0.1, -0.1, 0.2, -0.2}: MAD 0.1, variance (0.14826)² · π/10.
  EXPECT_NEAR(round_variance({0, 0.1, -0.1, 0.2, -0.2}), std::pow(0.1482602218505602, 2) * std::numbers::pi / 10, 1e-12);
  EXPECT_EQ(round_variance({0.3}), 0.0);
}

TEST(BaselineSetStats, PlantedWholeRunTenPercentIsFoundAsAWholeRunRegression) {
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    Synth s(seed);
    auto in = input(s, 3, {});
    in.next = {s.run(1.10)};
    const auto r = judge(in, {});
    const auto& run = run_finding(r);
    EXPECT_NEAR(std::exp(run.effect), 1.10, 0.04) << seed;
    if (run.verdict == Verdict::regressed) ++found;
    EXPECT_NE(run.verdict, Verdict::improved);
  }
  EXPECT_GE(found, 45);  // 47 of 50: three baselines estimate the run's own drift from three pairs
}

TEST(BaselineSetStats, OneBaselineThatJumpedAsAWholeDoesNotHideAThreefoldRun) {
  // Seen in CI: five shared-memory baselines, one of them slower as a whole, and a TCP run 3.4x
  // slower everywhere came out inconclusive, a tail fitted to the baselines' ten pair
  // differences (four contrasts) making any whole-run shift unremarkable. The jump the baselines
  // showed is what an honest run may do again; three times slower than all of them is not.
  int found = 0, like_the_jump = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    Synth s(9000 + seed);
    auto in = input(s, 5, {});
    for (auto& v : in.base[seed % 5]) v += std::log(1.4);
    in.next = {s.run(3.0)};
    if (run_finding(judge(in, {})).verdict == Verdict::regressed) ++found;
    in.next = {s.run(1.4)};
    if (run_finding(judge(in, {})).verdict == Verdict::regressed) ++like_the_jump;
  }
  EXPECT_EQ(found, 50);
  EXPECT_EQ(like_the_jump, 0);
}

TEST(BaselineSetStats, HonestRerunsGiveNoRegressionAcrossSeeds) {
  int regressed = 0, run_level = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    Synth s(1000 + seed);
    auto in = input(s, 3, {});
    in.next = {s.run()};
    const auto r = judge(in, {});
    if (r.regressed()) ++regressed;
    if (run_finding(r).verdict == Verdict::regressed) ++run_level;
  }
  EXPECT_LE(regressed, 3);  // at most 1%
  EXPECT_EQ(run_level, 0);
}

TEST(BaselineSetStats, RandomHundredfoldJumpsOfHonestPointsAreNotRegressions) {
  // A loaded machine: any point of any run is 100x slower with probability 5% (seen on this
  // project's 2-core machine under four builds). A new run's jump in a point whose three
  // baselines happened to be quiet is what the baselines' other points show: no evidence.
  int regressed = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    Synth s(4000 + seed);
    s.jump_rate = 0.05;
    s.jump = 100;
    auto in = input(s, 3, {});
    in.next = {s.run()};
    if (judge(in, {}).regressed()) ++regressed;  // 1 of 200: a family with 3 of its 4 points jumped
  }
  EXPECT_LE(regressed, 2) << regressed;
}

TEST(BaselineSetStats, SinglePointPlantedTwentyPercentIsFound) {
  int found = 0, elsewhere = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    Synth s(2000 + seed);
    s.point_sd = 0.015;  // a quiet large-message point
    auto in = input(s, 3, {});
    const std::size_t planted = point_of(1, 0, 2, 3);
    in.next = {s.run(1.0, planted, 1.20)};
    const auto r = judge(in, {});
    if (r.points[planted].verdict == Verdict::regressed) ++found;
    for (std::size_t p = 0; p < kPoints; ++p) {
      if (p != planted && r.points[p].verdict == Verdict::regressed) ++elsewhere;
    }
    EXPECT_NE(run_finding(r).verdict, Verdict::regressed) << seed;
  }
  EXPECT_GE(found, 45);
  EXPECT_LE(elsewhere, 1);
}

TEST(BaselineSetStats, TooMuchBaselineNoiseIsInconclusiveNotARegression) {
  Synth s(3);
  s.run_sd = 0.25;
  s.point_sd = 0.30;
  auto in = input(s, 3, {});
  const std::size_t planted = point_of(0, 1, 1, 2);
  // A 20% slowdown of one point, and of the whole run, against baselines that vary by ~30%.
  std::vector<double> next = s.run(1.20, planted, 1.20);
  in.next = {next};
  const auto r = judge(in, {});
  EXPECT_FALSE(r.regressed());
  EXPECT_EQ(run_finding(r).verdict, Verdict::inconclusive);
  EXPECT_GT(r.count(UnitKind::point, Verdict::inconclusive), 30);
  EXPECT_EQ(r.count(UnitKind::point, Verdict::unchanged), 0);  // the noise exceeds the threshold everywhere
}

TEST(BaselineSetStats, ConfirmNeedsTheRegressionInTwoNewRuns) {
  Synth s(11);
  s.run_sd = 0.005;
  s.point_sd = 0.01;
  std::vector<std::vector<double>> base;
  for (int i = 0; i < 3; ++i) base.push_back(s.run());
  const std::size_t planted = point_of(0, 0, 0, 0);
  JudgeOptions confirm;
  confirm.confirm = true;
  JudgeInput in;
  in.base = base;
  in.families = families();
  // The planted point slower in one of the two new runs only: a regression without --confirm,
  // inconclusive with it.
  in.next = {s.run(1.0, planted, 1.5), s.run()};
  EXPECT_EQ(judge(in, {}).points[planted].runs_slower, 1);
  const auto once = judge(in, confirm);
  EXPECT_EQ(once.points[planted].verdict, Verdict::inconclusive);
  EXPECT_TRUE(once.points[planted].unconfirmed);
  EXPECT_FALSE(once.regressed());
  // In both: confirmed.
  in.next = {s.run(1.0, planted, 1.5), s.run(1.0, planted, 1.5)};
  const auto twice = judge(in, confirm);
  EXPECT_EQ(twice.points[planted].verdict, Verdict::regressed);
  EXPECT_EQ(twice.points[planted].runs_slower, 2);
  EXPECT_TRUE(twice.regressed());
}

TEST(BaselineSetStats, FasterEverywhereIsAnImprovementNotARegression) {
  Synth s(5);
  auto in = input(s, 3, {});
  in.next = {s.run(0.8)};
  const auto r = judge(in, {});
  EXPECT_FALSE(r.regressed());
  EXPECT_EQ(run_finding(r).verdict, Verdict::improved);
  EXPECT_NEAR(std::exp(run_finding(r).effect), 0.8, 0.03);
}

TEST(BaselineSetStats, RoundsSupplyTheNoiseOfASingleBaseline) {
  // One baseline against two new runs, but each run's rounds say how much its medians move:
  // that is the noise. (One against one is judged from the points.)
  Synth s(9);
  JudgeInput in;
  in.base = {s.run()};
  in.next = {s.run(1.10), s.run(1.10)};
  in.families = families();
  const double var = 0.03 * 0.03;  // per-run variance of a log median from its rounds
  in.base_round_var = {std::vector<double>(kPoints, var)};
  in.next_round_var = {std::vector<double>(kPoints, var), std::vector<double>(kPoints, var)};
  ASSERT_EQ(noise_source(in), NoiseSource::baseline_runs);
  const auto r = judge(in, {});
  const auto& run = run_finding(r);
  EXPECT_NEAR(run.round_sigma, 0.03 * std::sqrt(median_variance_factor(kPoints)), 1e-12);
  EXPECT_EQ(run.verdict, Verdict::regressed);
  EXPECT_NEAR(r.points[0].round_sigma, 0.03, 1e-12);
  // Rounds floor the noise: with baselines that happen to agree exactly, the rounds still speak.
  JudgeInput same = in;
  same.base = {in.base[0], in.base[0], in.base[0]};
  same.base_round_var = {in.base_round_var[0], in.base_round_var[0], in.base_round_var[0]};
  same.next = {in.base[0]};
  for (auto& v : same.next[0]) v += std::log(1.06);
  const auto q = judge(same, {});
  EXPECT_EQ(q.count(UnitKind::point, Verdict::regressed), 0);  // 6% against 3% noise per point: not beyond it
  EXPECT_EQ(run_finding(q).verdict, Verdict::regressed);       // but the run's 60 points together are
}

// The baselines' median per point: a new run that sits exactly at their centre.
std::vector<double> centre_of(const JudgeInput& in) {
  std::vector<double> out;
  for (std::size_t p = 0; p < kPoints; ++p) {
    std::vector<double> v;
    for (const auto& run : in.base) v.push_back(run[p]);
    out.push_back(median_of(v));
  }
  return out;
}

TEST(BaselineSetStats, DetectableIsWhereAPointAloneTurnsRegressed) {
  // For several baseline sets and points: a lone slowdown 1% above the point's `detectable` is
  // called a regression, 1% below it is not (the reach the output promises is the verdict's).
  int checked = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    Synth s(6000 + seed);
    s.point_sd = 0.02;
    auto in = input(s, 4, {});
    const auto centre = centre_of(in);
    in.next = {centre};
    const auto honest = judge(in, {});
    for (std::size_t planted : {point_of(0, 0, 0, 0), point_of(1, 1, 2, 4), point_of(0, 1, 1, 3)}) {
      const double d = honest.points[planted].detectable;
      ASSERT_TRUE(std::isfinite(d)) << seed;
      EXPECT_GE(d, std::log1p(JudgeOptions{}.threshold) - 1e-12);
      const double e0 = honest.points[planted].effect;
      for (double margin : {+0.01, -0.01}) {
        auto next = centre;
        next[planted] += d + margin - e0;
        in.next = {next};
        const auto r = judge(in, {});
        EXPECT_EQ(r.points[planted].verdict == Verdict::regressed, margin > 0) << seed << " point " << planted << " margin " << margin;
        EXPECT_NEAR(r.points[planted].detectable, d, 1e-3);  // the reach depends on the baselines, not on the new run
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 18);
}

TEST(BaselineSetStats, AWholeRunSlowdownOfTheFound95SizeIsFoundNineteenTimesInTwenty) {
  // The reach is a power statement: planting exactly the "found 95%" uniform slowdown into fresh
  // new runs must find it about 95% of the time, and the "called from" size about half the time
  // (normal synthetic noise, seeded): too small a reach would fail the first, too large the second.
  int found = 0, found_at_called = 0;
  constexpr int kTrials = 80;
  for (std::uint64_t seed = 1; seed <= kTrials; ++seed) {
    Synth s(7000 + seed);
    s.run_sd = 0.03;
    auto in = input(s, 5, {});
    in.next = {s.run()};
    const auto reach = judge(in, {}).reach(UnitKind::run);
    ASSERT_EQ(reach.units, 1);
    ASSERT_TRUE(std::isfinite(reach.found_95));
    EXPECT_GT(reach.found_95, reach.called);
    in.next = {s.run(std::exp(reach.found_95))};
    if (run_finding(judge(in, {})).verdict == Verdict::regressed) ++found;
    in.next = {s.run(std::exp(reach.called))};
    if (run_finding(judge(in, {})).verdict == Verdict::regressed) ++found_at_called;
  }
  RecordProperty("found", found);
  RecordProperty("found_at_called", found_at_called);
  EXPECT_GE(found, 68) << found;                      // 95% of 80 is 76; 68 is 4 binomial sd below
  EXPECT_GE(found_at_called, 24) << found_at_called;  // half of 80 is 40, binomial sd 4.5
  EXPECT_LE(found_at_called, 56) << found_at_called;
}

TEST(BaselineSetStats, ReachGrowsWithTheBaselinesNoise) {
  Synth quiet(11), noisy(11);
  noisy.point_sd = 0.12;
  noisy.run_sd = 0.08;
  auto a = input(quiet, 3, {});
  a.next = {quiet.run()};
  auto b = input(noisy, 3, {});
  b.next = {noisy.run()};
  const auto ra = judge(a, {}), rb = judge(b, {});
  for (auto kind : {UnitKind::point, UnitKind::op_size, UnitKind::run}) {
    EXPECT_LT(ra.reach(kind).called, rb.reach(kind).called) << to_string(kind);
    EXPECT_LT(ra.reach(kind).found_95, rb.reach(kind).found_95) << to_string(kind);
  }
  EXPECT_EQ(ra.reach(UnitKind::point).units, static_cast<int>(kPoints));
  EXPECT_EQ(ra.reach(UnitKind::op_size).units, kOps * kSizes);
}

// Interleaved launches on a machine with slow spells: runs launched in time order A B A B … A,
// each run's whole level +12% (and a fixed per-point pattern of sd 5%) while a spell lasts;
// spells start at random and last 2 to 5 launches. What the 2-core machine showed
// (docs/report.md, "Interleaved launches").
struct SpellRuns {
  JudgeInput in;
  explicit SpellRuns(std::uint64_t seed, int k, double whole = 1.0) {
    Synth s(seed);
    s.run_sd = 0.01;
    s.point_sd = 0.02;
    std::vector<double> pattern;
    for (std::size_t p = 0; p < kPoints; ++p) pattern.push_back(0.05 * s.normal());
    const int launches = 2 * k + 1;
    std::vector<bool> slow(static_cast<std::size_t>(launches), false);
    for (int t = 0; t < launches;) {
      const double u = 0.5 * (1 + std::erf(s.normal() / std::numbers::sqrt2));
      const int length = 2 + static_cast<int>(u * 4);
      const bool spell = s.normal() > 0.5;  // about a third of the time in a spell
      for (int i = 0; i < length && t < launches; ++i, ++t) slow[static_cast<std::size_t>(t)] = spell;
    }
    for (int t = 0; t < launches; ++t) {
      auto run = s.run(t % 2 == 1 ? whole : 1.0);
      if (slow[static_cast<std::size_t>(t)]) {
        for (std::size_t p = 0; p < kPoints; ++p) run[p] += std::log(1.12) + pattern[p];
      }
      (t % 2 == 0 ? in.base : in.next).push_back(run);
    }
    for (std::size_t j = 0; j < static_cast<std::size_t>(k); ++j) in.beside.insert(in.beside.end(), {{j, j}, {j, j + 1}});
    in.families = families();
  }
};

TEST(BaselineSetStats, InterleavedEffectIsTheMedianOfTheAdjacentDifferences) {
  // No point noise: a run is the truth plus its level. Baselines at 0, +0.1, 0; new runs at
  // +0.3 and +0.05: adjacent differences 0.3, 0.2, −0.05, 0.05; median 0.125.
  Synth s(1);
  const auto at = [&](double level) {
    auto r = s.truth;
    for (auto& v : r) v += level;
    return r;
  };
  JudgeInput in;
  in.base = {at(0), at(0.1), at(0)};
  in.next = {at(0.3), at(0.05)};
  in.families = families();
  in.beside = {{0, 0}, {0, 1}, {1, 1}, {1, 2}};
  const auto r = judge(in, {});
  EXPECT_NEAR(run_finding(r).effect, 0.125, 1e-12);
  // Every set pair instead: differences 0.3, 0.2, 0.3, 0.05, −0.05, 0.05; median 0.125 as well,
  // but the noise comes from the baselines' pairs (0.1, 0, 0.1), not from the adjacent ones.
  in.beside.clear();
  const auto all = judge(in, {});
  EXPECT_NEAR(run_finding(all).effect, 0.125, 1e-12);
  EXPECT_NE(run_finding(all).own_sigma, run_finding(r).own_sigma);
}

TEST(BaselineSetStats, InterleavedLaunchesCancelSlowSpells) {
  int honest_alarms = 0, honest_run_level = 0, found = 0, found_as_set = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    SpellRuns honest(7000 + seed, 2);
    const auto r = judge(honest.in, {});
    honest_alarms += r.regressed() ? 1 : 0;
    honest_run_level += run_finding(r).verdict == Verdict::regressed ? 1 : 0;
    SpellRuns slower(7000 + seed, 2, 1.10);
    found += run_finding(judge(slower.in, {})).verdict == Verdict::regressed ? 1 : 0;
    slower.in.beside.clear();  // the same runs judged as a set: the spells are noise between baselines
    found_as_set += run_finding(judge(slower.in, {})).verdict == Verdict::regressed ? 1 : 0;
  }
  EXPECT_LE(honest_alarms, 3);  // at most 1%
  EXPECT_EQ(honest_run_level, 0);
  EXPECT_GE(found, 285);  // 95%
  EXPECT_LT(found_as_set, found - 30) << found_as_set;
}

// The same launches with rounds: each run's rounds estimate its own noise (the point noise of
// Synth, 2%), which is what is left of a point's noise once the spells cancel.
void add_rounds(JudgeInput& in, double point_sd, int rounds) {
  for (auto* side : {&in.base, &in.next}) {
    auto& var = side == &in.base ? in.base_round_var : in.next_round_var;
    var.assign(side->size(), std::vector<double>(kPoints, point_sd * point_sd));
  }
  in.rounds.assign(kPoints, rounds);
}

void plant_everywhere(JudgeInput& in, std::size_t point, double factor) {
  for (auto& run : in.next) run[point] += std::log(factor);
}

TEST(BaselineSetStats, InterleavedPointsTakeTheirNoiseFromTheRoundsToo) {
  // A point 15% slower in every new run, B N B N B N B with spells: the baseline pairs see the
  // spells' per-point pattern (sd 5%) beside the run's own noise (2%); the rounds see only the
  // latter, which is most of what an adjacent difference keeps.
  int honest_alarms = 0, found_with_rounds = 0, found_pairs_only = 0;
  const std::size_t planted = point_of(0, 1, 1, 2);
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    SpellRuns honest(9000 + seed, 3);
    add_rounds(honest.in, 0.02, 3);
    honest_alarms += judge(honest.in, {}).regressed() ? 1 : 0;
    SpellRuns slower(9000 + seed, 3);
    plant_everywhere(slower.in, planted, 1.15);
    found_pairs_only += judge(slower.in, {}).points[planted].verdict == Verdict::regressed ? 1 : 0;
    add_rounds(slower.in, 0.02, 3);
    found_with_rounds += judge(slower.in, {}).points[planted].verdict == Verdict::regressed ? 1 : 0;
  }
  EXPECT_LE(honest_alarms, 2);                                              // at most 1%
  EXPECT_GE(found_with_rounds, 80) << found_with_rounds;                    // 89 of 200
  EXPECT_LT(found_pairs_only, found_with_rounds - 15) << found_pairs_only;  // 68
}

TEST(BaselineSetStats, InterleavedHundredfoldJumpsOfHonestPointsAreNotRegressions) {
  // The loaded machine of RandomHundredfoldJumpsOfHonestPointsAreNotRegressions, launched
  // B N B N B: both new runs jump at the same point in about one comparison in seven (60
  // points, 5% each), which moves all four of its adjacent differences. The baselines' jumps
  // show that this machine does so; without them the fitted tail (a t with one degree of
  // freedom) calls 24 of these 200 comparisons a regression.
  int regressed = 0, both_jumped = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    Synth s(11000 + seed);
    s.jump_rate = 0.05;
    s.jump = 100;
    JudgeInput in;
    for (int t = 0; t < 5; ++t) (t % 2 == 0 ? in.base : in.next).push_back(s.run());
    in.beside = {{0, 0}, {0, 1}, {1, 1}, {1, 2}};
    in.families = families();
    add_rounds(in, s.point_sd, 3);
    for (std::size_t p = 0; p < kPoints; ++p) both_jumped += in.next[0][p] - s.truth[p] > 2 && in.next[1][p] - s.truth[p] > 2 ? 1 : 0;
    regressed += judge(in, {}).regressed() ? 1 : 0;
  }
  EXPECT_GE(both_jumped, 10);  // the case this test is about happened
  EXPECT_LE(regressed, 2) << regressed;
}

// A gate's history on the machine of SpellRuns (spells `spell_factor` slower): `history`
// launches, then B N B N B, one timeline with the spells falling where they fall. The new runs
// are `whole` slower, and `factor` slower at `planted`.
struct GateTimeline {
  JudgeInput in;
  int history_boundaries = 0;  // successive history runs of which one is in a spell and one not
  GateTimeline(std::uint64_t seed, int history, double run_sd, double whole = 1.0, std::size_t planted = kPoints, double factor = 1.0,
               double spell_factor = 1.12) {
    Synth s(seed);
    s.run_sd = run_sd;
    s.point_sd = 0.02;
    std::vector<double> pattern;
    for (std::size_t p = 0; p < kPoints; ++p) pattern.push_back(0.05 * s.normal());
    const int launches = history + 5;
    std::vector<bool> slow(static_cast<std::size_t>(launches), false);
    for (int t = 0; t < launches;) {
      const double u = 0.5 * (1 + std::erf(s.normal() / std::numbers::sqrt2));
      const int length = 2 + static_cast<int>(u * 4);
      const bool spell = s.normal() > 0.5;
      for (int i = 0; i < length && t < launches; ++i, ++t) slow[static_cast<std::size_t>(t)] = spell;
    }
    for (int t = 1; t < history; ++t)
      history_boundaries += slow[static_cast<std::size_t>(t)] != slow[static_cast<std::size_t>(t - 1)] ? 1 : 0;
    for (int t = 0; t < launches; ++t) {
      const bool is_new = t >= history && (t - history) % 2 == 1;
      auto run = is_new ? s.run(whole, planted, factor) : s.run();
      if (slow[static_cast<std::size_t>(t)]) {
        for (std::size_t p = 0; p < kPoints; ++p) run[p] += std::log(spell_factor) + pattern[p];
      }
      (t < history ? in.history : is_new ? in.next : in.base).push_back(run);
    }
    in.beside = {{0, 0}, {0, 1}, {1, 1}, {1, 2}};
    in.families = families();
  }
};

TEST(BaselineSetStats, HistoryMeasuresTheWholeRunsNoiseAcrossSpells) {
  // The measured machine: whole runs 1% apart from launch to launch, spells 30% slow. Each
  // run's shift also carries the median of its 60 points' own noise (2% / sqrt(60) * 1.25,
  // about 0.3%): one run's whole-run sigma is sqrt(1² + 0.3²) = 1.05%. Forty launches of history
  // measure it within 30% nine times in ten; four adjacent differences of one comparison, one in five.
  int honest_alarms = 0, found = 0, measured = 0, measured_without = 0, boundaries = 0;
  const auto near_truth = [](double sigma) { return std::fabs(sigma / 0.0105 - 1) < 0.3; };
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    GateTimeline honest(13000 + seed, 40, 0.01, 1.0, kPoints, 1.0, 1.3);
    const auto r = judge(honest.in, {});
    honest_alarms += r.regressed() ? 1 : 0;
    measured += near_truth(run_finding(r).own_sigma) ? 1 : 0;
    // A spell moves the whole run 26% (log 1.3) against steps of 1.5%: every boundary, and only
    // those, is left out as a change of the machine's state.
    EXPECT_EQ(r.history_jumps, honest.history_boundaries) << seed;
    boundaries += honest.history_boundaries;
    GateTimeline slower(13000 + seed, 40, 0.01, 1.10, kPoints, 1.0, 1.3);
    found += run_finding(judge(slower.in, {})).verdict == Verdict::regressed ? 1 : 0;
    honest.in.history.clear();
    measured_without += near_truth(run_finding(judge(honest.in, {})).own_sigma) ? 1 : 0;
  }
  EXPECT_LE(honest_alarms, 3) << honest_alarms;  // at most 1%
  EXPECT_GE(found, 285) << found;                // 95%
  EXPECT_GE(measured, 240) << measured;          // 268 of 300 (without the history: 62)
  EXPECT_LT(measured_without, measured - 100) << measured_without;
  EXPECT_GE(boundaries, 1000);  // the spells were there to be set aside (1,358)
}

TEST(BaselineSetStats, HistoryGivesAPointTheNoiseThreeBaselinesCannot) {
  // A point 15% slower in both new runs, points 2% apart from launch to launch, no rounds: three
  // baselines give each point two contrasts, a history of 30 launches twenty-nine.
  int honest_alarms = 0, found = 0, found_without = 0;
  const std::size_t planted = point_of(1, 0, 2, 3);
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    GateTimeline honest(15000 + seed, 30, 0.01);
    honest_alarms += judge(honest.in, {}).regressed() ? 1 : 0;
    GateTimeline slower(15000 + seed, 30, 0.01, 1.0, planted, 1.15);
    found += judge(slower.in, {}).points[planted].verdict == Verdict::regressed ? 1 : 0;
    slower.in.history.clear();
    found_without += judge(slower.in, {}).points[planted].verdict == Verdict::regressed ? 1 : 0;
  }
  EXPECT_LE(honest_alarms, 2) << honest_alarms;  // at most 1%
  EXPECT_GE(found, 160) << found;                // 80% (measured 170; without the history 68)
  EXPECT_LT(found_without, found - 30) << found_without;
}

TEST(BaselineSetStats, AdjacentOrderCountsTheRunsAJumpMustReach) {
  using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
  const auto order = [](const Pairs& beside) {
    const auto o = adjacent_order(beside);
    return std::pair{o.above, o.runs};
  };
  using Order = std::pair<std::size_t, std::size_t>;
  EXPECT_EQ(order({}), (Order{0, 0}));
  EXPECT_EQ(order({{0, 0}}), (Order{1, 1}));
  // B N B N B: three of four above the lower median, which two runs' jumps reach.
  EXPECT_EQ(order({{0, 0}, {0, 1}, {1, 1}, {1, 2}}), (Order{3, 2}));
  // One pair lost: the lower median of three is two, which one run reaches; all three take two.
  EXPECT_EQ(order({{0, 0}, {0, 1}, {1, 1}}), (Order{3, 2}));
  // Four new runs, eight pairs: five above, three runs.
  Pairs eight;
  for (std::size_t j = 0; j < 4; ++j) eight.insert(eight.end(), {{j, j}, {j, j + 1}});
  EXPECT_EQ(order(eight), (Order{5, 3}));
  // Seven of them: the lower median (four) falls to two runs, five above still takes three.
  Pairs seven = eight;
  seven.pop_back();
  EXPECT_EQ(order(seven), (Order{5, 3}));
  // A baseline beside three new runs counts for three: four above is reached by two runs, and so
  // is five (3 + 3), so the lower median stays.
  EXPECT_EQ(order({{0, 0}, {0, 3}, {1, 0}, {1, 3}, {2, 0}, {2, 3}}), (Order{4, 2}));
}

// B N B N B N B N B with no noise but `level` per run, and the pair of new run 3 with the last
// baseline lost (its state differed): seven adjacent differences.
JudgeInput seven_pairs(const std::vector<double>& truth, const std::vector<double>& base_level, const std::vector<double>& new_level) {
  JudgeInput in;
  const auto at = [&](double level) {
    auto r = truth;
    for (auto& v : r) v += level;
    return r;
  };
  for (double l : base_level) in.base.push_back(at(l));
  for (double l : new_level) in.next.push_back(at(l));
  for (std::size_t j = 0; j < 4; ++j) in.beside.insert(in.beside.end(), {{j, j}, {j, j + 1}});
  in.beside.pop_back();
  return in;
}

TEST(BaselineSetStats, InterleavedEffectWithSevenPairsIsTheFifthLargest) {
  // A point in a run family of two, its partner flat. New runs 0 and 1 at +0.4 there, runs 2 and
  // 3 at 0: less each pair's run shift (the mean of the two points, +0.2 or 0), the differences at
  // the point are 0.2, 0.2, 0.2, 0.2, 0, 0, 0. Their lower median (0.2) is what two runs' jumps
  // make; the fifth largest (0) is what a slowdown must move.
  Synth s(2);
  const std::vector<double> truth{s.truth[0], s.truth[1]};
  auto in = seven_pairs(truth, {0, 0, 0, 0, 0}, {0, 0, 0, 0});
  in.next[0][0] += 0.4;
  in.next[1][0] += 0.4;
  in.families = {{UnitKind::run, {0, 1}}};
  auto r = judge(in, {});
  EXPECT_NEAR(r.points[0].effect_slow, 0.0, 1e-12);
  // Every new run +0.4 at the point: the fifth largest moves too.
  for (auto& run : in.next) run[0] = truth[0] + 0.4;
  r = judge(in, {});
  EXPECT_NEAR(r.points[0].effect_slow, 0.2, 1e-12);
}

TEST(BaselineSetStats, TwoNewRunsJumpingAtAPointInASevenPairWindowAreNotARegression) {
  // Four new runs, one pair lost, rounds of 2% noise and no jumps in the baselines to learn
  // from. Two new runs 100-fold slower at one point (an honest jump, twice) move four of the
  // seven differences: their lower median called that a regression; the fifth largest does not.
  // The same point 40% slower in every new run is still found.
  int jumped_regressed = 0, planted_found = 0;
  const std::size_t point = point_of(1, 0, 2, 3);
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Synth s(13000 + seed);
    s.point_sd = 0.02;
    JudgeInput in;
    for (int t = 0; t < 9; ++t) (t % 2 == 0 ? in.base : in.next).push_back(s.run());
    for (std::size_t j = 0; j < 4; ++j) in.beside.insert(in.beside.end(), {{j, j}, {j, j + 1}});
    in.beside.pop_back();
    in.families = families();
    add_rounds(in, s.point_sd, 3);
    auto jumped = in;
    jumped.next[0][point] += std::log(100.0);
    jumped.next[1][point] += std::log(100.0);
    jumped_regressed += judge(jumped, {}).points[point].verdict == Verdict::regressed ? 1 : 0;
    plant_everywhere(in, point, 1.4);
    planted_found += judge(in, {}).points[point].verdict == Verdict::regressed ? 1 : 0;
  }
  EXPECT_EQ(jumped_regressed, 0);
  EXPECT_GE(planted_found, 36) << planted_found;
}

TEST(BaselineSetStats, AFamilyAcrossTimingModesIsJudgedAgainstEachModesOwnShift) {
  // Two timing modes of six points; the new runs' second mode 50% slower as a whole, and one op
  // at one size (point 0 in the first mode, point 6 in the second) 20% slower in both. The
  // family of the two is 20% slower than the rest of each run, not the 45% its raw differences
  // average to.
  const auto value = [](int run, int p) { return std::log(10.0 + p) + 0.005 * std::sin(1.3 * run + 2.1 * p + 0.7 * run * p); };
  const auto run_of = [&](int run, bool is_new) {
    std::vector<double> v;
    for (int p = 0; p < 12; ++p)
      v.push_back(value(run, p) + (is_new && p >= 6 ? std::log(1.5) : 0.0) + (is_new && p % 6 == 0 ? std::log(1.2) : 0.0));
    return v;
  };
  JudgeInput in;
  for (int b = 0; b < 3; ++b) in.base.push_back(run_of(b, false));
  for (int j = 0; j < 2; ++j) in.next.push_back(run_of(10 + j, true));
  in.families = {{UnitKind::run, {0, 1, 2, 3, 4, 5}}, {UnitKind::run, {6, 7, 8, 9, 10, 11}}, {UnitKind::op_size, {0, 6}}};
  in.base_round_var.assign(3, std::vector<double>(12, 0.005 * 0.005));
  in.next_round_var.assign(2, std::vector<double>(12, 0.005 * 0.005));
  in.rounds.assign(12, 3);
  const auto r = judge(in, {});
  EXPECT_NEAR(r.families[1].effect, std::log(1.5), 0.02);
  EXPECT_NEAR(r.families[2].effect, std::log(1.2), 0.02);
  EXPECT_EQ(r.families[2].verdict, Verdict::regressed);
}

TEST(BaselineSetStats, EachUnitsDegreesOfFreedomCountTheHistoryStepsOfItsOwnTimingMode) {
  // Two timing modes of two points each. The first moves as a whole by 50% once in the history
  // (a change of the machine's state, left out), the second never: a unit's sigma rests on the
  // steps left in its own mode, seven of eight runs' steps in the second, six in the first.
  const auto value = [](int run, int p) { return 0.01 * std::sin(1.3 * run + 2.1 * p + 0.7 * run * p); };
  const auto run_of = [&](int run, double first_mode_shift) {
    std::vector<double> v;
    for (int p = 0; p < 4; ++p) v.push_back(value(run, p) + (p < 2 ? first_mode_shift : 0.0));
    return v;
  };
  JudgeInput in;
  for (int h = 0; h < 8; ++h) in.history.push_back(run_of(h, h >= 4 ? std::log(1.5) : 0.0));
  for (int b = 0; b < 3; ++b) in.base.push_back(run_of(10 + b, 0));
  in.next.push_back(run_of(20, 0));
  in.families = {{UnitKind::run, {0, 1}}, {UnitKind::run, {2, 3}}};
  const JudgeOptions o;
  const auto r = judge(in, o);
  EXPECT_EQ(r.history_jumps, 1);
  for (std::size_t p : {0U, 1U}) EXPECT_DOUBLE_EQ(r.points[p].df, 6 + o.prior_pairs) << p;
  for (std::size_t p : {2U, 3U}) EXPECT_DOUBLE_EQ(r.points[p].df, 7 + o.prior_pairs) << p;
  EXPECT_DOUBLE_EQ(r.families[0].df, 6 + o.prior_pairs);
  EXPECT_DOUBLE_EQ(r.families[1].df, 7 + o.prior_pairs);
}

// A quiet history of 40 launches (no spells, no jumps), then B N B N B: the gate's recipe on a
// machine whose history never showed what today's launches do.
GateTimeline quiet_gate(std::uint64_t seed) { return GateTimeline(seed, 40, 0.01, 1.0, kPoints, 1.0, 1.0); }

TEST(BaselineSetStats, TodaysBaselinesJumpingAtPointsCountInTheJumpBound) {
  // Both new runs 2.7x slower at five points, which the history never saw jump. Alone, that is a
  // regression at each of them. When the first baseline jumped at the same five points (3x: as
  // far as the new runs, with its own noise), today's launches show such jumps: two of five runs
  // jumping at a point is then no evidence (the batch of 2026-12-06, runs 81-84, batched 1-4 MiB).
  const std::vector<std::size_t> jumped = {point_of(0, 0, 0, 4), point_of(0, 1, 1, 4), point_of(1, 0, 2, 4), point_of(1, 1, 0, 3),
                                           point_of(1, 1, 2, 4)};
  int alone_found = 0, with_baseline_found = 0, other_regressions = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto gate = quiet_gate(21000 + seed);
    for (auto p : jumped) {
      for (auto& run : gate.in.next) run[p] += std::log(2.7);
    }
    auto r = judge(gate.in, {});
    for (auto p : jumped) alone_found += r.points[p].verdict == Verdict::regressed ? 1 : 0;
    for (auto p : jumped) gate.in.base[0][p] += std::log(3.0);
    r = judge(gate.in, {});
    for (std::size_t p = 0; p < kPoints; ++p) {
      const bool is_jumped = std::find(jumped.begin(), jumped.end(), p) != jumped.end();
      (is_jumped ? with_baseline_found : other_regressions) += r.points[p].verdict == Verdict::regressed ? 1 : 0;
    }
  }
  EXPECT_GE(alone_found, 190) << alone_found;  // of 200
  EXPECT_EQ(with_baseline_found, 0);
  EXPECT_EQ(other_regressions, 0);
}

TEST(BaselineSetStats, AdjacentDifferencesThatDisagreeAreTheWholeRunsNoise) {
  // The middle baseline launched 20% fast (the machine flipping from one launch to the next):
  // the adjacent differences are 0, +20%, +20%, 0, whose median (+10%) a history of steady 1%
  // steps would call a regression at ten sigmas. Their own spread says the pairing did not
  // cancel the machine here: inconclusive. The same +10% in all four is a regression.
  int flipping_regressed = 0, flipping_inconclusive = 0, steady_regressed = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    auto flipping = quiet_gate(22000 + seed);
    for (auto& v : flipping.in.base[1]) v -= std::log(1.2);
    auto steady = quiet_gate(22000 + seed);
    for (auto& run : steady.in.next) {
      for (auto& v : run) v += std::log(1.1);
    }
    const auto f = run_finding(judge(flipping.in, {}));
    flipping_regressed += f.verdict == Verdict::regressed ? 1 : 0;
    flipping_inconclusive += f.verdict == Verdict::inconclusive ? 1 : 0;
    steady_regressed += run_finding(judge(steady.in, {})).verdict == Verdict::regressed ? 1 : 0;
  }
  EXPECT_EQ(flipping_regressed, 0);
  EXPECT_GE(flipping_inconclusive, 36) << flipping_inconclusive;
  EXPECT_GE(steady_regressed, 38) << steady_regressed;
}

}  // namespace
}  // namespace meshbench::analysis

namespace meshbench::analysis {
namespace {

// One run a side, no rounds, no history: the noise comes from the points (judge_from_points).
JudgeInput one_a_side(Synth& s, const std::vector<double>& next) {
  JudgeInput in;
  in.base = {s.run()};
  in.next = {next};
  in.families = families();
  return in;
}

TEST(JudgeFromPoints, HonestRerunsAreLeftAlone) {
  // 40 seeded pairs of honest runs (3% per point, 1% per run): no point, family or whole run
  // regresses at alpha 0.01 over the whole verdict; the whole run's median moves by ~1%.
  int alarms = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    Synth s(seed);
    const auto in = one_a_side(s, s.run());
    ASSERT_EQ(noise_source(in), NoiseSource::points);
    const auto r = judge(in, {});
    alarms += r.regressed() ? 1 : 0;
    EXPECT_NE(run_finding(r).verdict, Verdict::regressed);
  }
  EXPECT_LE(alarms, 1);
}

TEST(JudgeFromPoints, ASlowdownOfManyPointsIsNotHiddenByTheTailItWidens) {
  // One collective 4x slower from its third size up, in both mappings and dimensions (a protocol
  // threshold): 12 of 60 points. Judged against the points that moved the other way (mirrored),
  // each stands out; against the whole run's scatter, which they make a Cauchy, none would. A
  // quiet cluster's 1% per point (on a noisy machine's 3% the tail cap, kHeaviestPointsTail,
  // leaves a 4x move of a fifth of the points at the edge of significance).
  Synth s(3);
  s.point_sd = 0.01;
  auto next = s.run();
  std::vector<std::size_t> planted;
  for (int m = 0; m < kMappings; ++m) {
    for (int d = 0; d < kDims; ++d) {
      for (int size = 2; size < kSizes; ++size) planted.push_back(point_of(m, d, 0, size));
    }
  }
  for (auto p : planted) next[p] += std::log(4.0);
  const auto r = judge(one_a_side(s, next), {});
  for (std::size_t p = 0; p < kPoints; ++p) {
    const bool is_planted = std::find(planted.begin(), planted.end(), p) != planted.end();
    EXPECT_EQ(r.points[p].verdict == Verdict::regressed, is_planted) << "point " << p;
  }
  EXPECT_TRUE(r.regressed());
}

TEST(JudgeFromPoints, OneHonestJumpOfALoadedMachineIsNotARegression) {
  // A loaded machine's honest jumps are slowdowns only: one point 3.7x slower among points
  // scattering 3%. The points that moved the other way never show such a jump, but the whole
  // run's tail does (a t2 here), and the slowdown is judged under the heavier of the two.
  int called = 0;
  for (std::uint64_t seed = 20; seed < 40; ++seed) {
    Synth s(seed);
    auto next = s.run();
    next[17] += std::log(3.7);
    called += judge(one_a_side(s, next), {}).points[17].verdict == Verdict::regressed ? 1 : 0;
  }
  EXPECT_LE(called, 1);
}

TEST(JudgeFromPoints, AWholeRunMovedWithinItsScatterIsInconclusiveNeverClean) {
  // Points scattering ±30% around a whole run 30% slower: beyond the threshold, not beyond the
  // points' scatter, so one run a side cannot call it; with 1% scatter it is a regression.
  Synth noisy(5);
  noisy.point_sd = 0.3;
  const auto r = judge(one_a_side(noisy, noisy.run(1.3)), {});
  EXPECT_EQ(run_finding(r).verdict, Verdict::inconclusive);
  Synth quiet(5);
  quiet.point_sd = 0.01;
  const auto q = judge(one_a_side(quiet, quiet.run(1.3)), {});
  EXPECT_EQ(run_finding(q).verdict, Verdict::regressed);
  EXPECT_EQ(q.count(UnitKind::point, Verdict::regressed), 0);  // each point moved with its run
}

TEST(JudgeFromPoints, ImprovementsAreSymmetricInLogRatio) {
  // One point 1/1.2 as long, and its mirror 1.2 times: called alike, improved and regressed.
  Synth s(8);
  s.point_sd = 0.01;
  const auto base = s.run();
  auto faster = base, slower = base;
  faster[7] -= std::log(1.2);
  slower[7] += std::log(1.2);
  JudgeInput a;
  a.base = {base};
  a.next = {faster};
  a.families = families();
  JudgeInput b = a;
  b.next = {slower};
  const auto fa = judge(a, {}), sl = judge(b, {});
  EXPECT_EQ(fa.points[7].verdict, Verdict::improved);
  EXPECT_EQ(sl.points[7].verdict, Verdict::regressed);
  EXPECT_NEAR(fa.points[7].q_faster, sl.points[7].q_slower, 1e-12);
  JudgeOptions o;
  EXPECT_NEAR(o.floor(), std::log(1.05), 1e-15);
}

TEST(JudgeFromPoints, TheWithinRunTestMustAgreeWhereSamplesExist) {
  // A point 20% slower among quiet points stands out between the runs; with samples that
  // overlap completely it is not regressed (the within-run test disagrees), with samples that
  // moved too it is.
  Synth s(11);
  s.point_sd = 0.005;
  const auto base = s.run();
  auto next = base;
  next[3] += std::log(1.2);
  JudgeInput in;
  in.base = {base};
  in.next = {next};
  in.families = families();
  in.base_samples.assign(kPoints, {});
  in.next_samples.assign(kPoints, {});
  std::vector<double> same, moved;
  for (int i = 0; i < 60; ++i) {
    same.push_back(10 + (i * 7 % 13) * 0.1);
    moved.push_back(12 + (i * 5 % 11) * 0.1);
  }
  in.base_samples[3] = same;
  in.next_samples[3] = same;
  EXPECT_NE(judge(in, {}).points[3].verdict, Verdict::regressed);
  in.next_samples[3] = moved;
  const auto r = judge(in, {});
  EXPECT_TRUE(r.points[3].within_tested);
  EXPECT_EQ(r.points[3].verdict, Verdict::regressed);
}

}  // namespace
}  // namespace meshbench::analysis
