// compare with one run a side (BASE.h5 NEW.h5): the one judge with its noise from the points —
// matching by structure, flagging only what is slower and significant, provenance.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "analysis/compare/compare.hpp"
#include "analysis/compare/compare_writers.hpp"
#include "common/error.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

using testing::pattern_samples;

// `compare BASE NEW`: a set of one baseline and one new run.
Comparison compare_two(const std::string& base, const std::string& next, const JudgeOptions& options = {}) {
  return compare_sets({results::ResultsFile::open(base)}, {results::ResultsFile::open(next)}, options);
}

int points(const Comparison& c, Verdict v) { return c.result.count(UnitKind::point, v); }

// The finding of the whole run (one timing mode in these files).
const UnitFinding& whole_run(const Comparison& c) {
  for (std::size_t f = 0; f < c.families.size(); ++f) {
    if (c.families[f].kind == UnitKind::run) return c.result.families[f];
  }
  throw std::runtime_error("no whole-run family");
}

// Two mappings × (tp all_reduce, ep all_to_all) × 3 sizes, 200 samples each with ±5% noise;
// `scale` multiplies one point (ep all_to_all at 64 KiB of "ep-inner").
testing::FixtureFile make_run(int phase, double scale = 1.0, const std::string& first_name = "ep-inner") {
  testing::FixtureFile f;
  f.add_mapping(first_name, "tp-cp-ep-dp-pp");
  f.add_mapping("dp-inner", "tp-cp-dp-ep-pp");
  for (const std::string& m : {first_name, std::string("dp-inner")}) {
    for (std::uint64_t b : {1024ULL, 16384ULL, 65536ULL}) {
      for (const auto& [dim, op, base] : {std::tuple{"tp", "all_reduce", 20.0}, std::tuple{"ep", "all_to_all", 50.0}}) {
        double center = base * (1 + static_cast<double>(b) / 65536.0);
        const bool planted = m == first_name && std::string(op) == "all_to_all" && b == 65536;
        if (planted) center *= scale;
        auto s = pattern_samples(center, 200, 0.05, phase);
        f.add_point(m, dim, op, b, median_of(s), s);
      }
    }
  }
  return f;
}

TEST(Compare, HonestRerunIsNotFlagged) {
  testing::ScratchDir dir;
  const auto base = make_run(0).write(dir / "base.h5");
  const auto next = make_run(3).write(dir / "new.h5");
  const auto c = compare_two(base, next);
  EXPECT_EQ(c.points.size(), 12U);
  EXPECT_FALSE(c.regressed());
  EXPECT_EQ(points(c, Verdict::regressed), 0);
  EXPECT_EQ(points(c, Verdict::improved), 0);
  EXPECT_NE(c.headline().find("no regression in 12 compared points"), std::string::npos) << c.headline();
}

TEST(Compare, PlantedTenPercentSlowdownIsFlaggedAndNothingElse) {
  testing::ScratchDir dir;
  const auto base = make_run(0).write(dir / "base.h5");
  const auto next = make_run(3, 1.10).write(dir / "new.h5");
  const auto c = compare_two(base, next);
  ASSERT_TRUE(c.regressed());
  ASSERT_EQ(points(c, Verdict::regressed), 1);
  const auto it =
      std::find_if(c.result.points.begin(), c.result.points.end(), [](const UnitFinding& x) { return x.verdict == Verdict::regressed; });
  const auto& r = c.points[static_cast<std::size_t>(it - c.result.points.begin())];
  EXPECT_EQ(r.point.mapping, "ep-inner");
  EXPECT_EQ(r.point.op, "all_to_all");
  EXPECT_EQ(r.point.bytes, 65536U);
  EXPECT_NEAR(std::exp(it->effect), 1.10, 0.01);
  EXPECT_TRUE(it->within_tested);
  EXPECT_LT(it->within.p_slower, 1e-6);
  EXPECT_LT(it->q_slower, c.result.level_alpha);
  EXPECT_LT(r.interval.low, 1.10);
  EXPECT_GT(r.interval.high, 1.10);
  EXPECT_NE(c.headline().find("ep all_to_all at 64 KiB (ep-inner, per_iteration) +"), std::string::npos) << c.headline();
}

TEST(Compare, SlowdownBelowTheThresholdIsNotARegression) {
  testing::ScratchDir dir;
  const auto base = make_run(0).write(dir / "base.h5");
  const auto next = make_run(3, 1.03).write(dir / "new.h5");
  EXPECT_FALSE(compare_two(base, next).regressed());
  JudgeOptions strict;
  strict.threshold = 0.02;
  EXPECT_TRUE(compare_two(base, next, strict).regressed());
}

// Every point `scale` times slower, with a tiny per-point wobble so the scatter is not zero.
testing::FixtureFile shifted_run(int phase, double scale) {
  testing::FixtureFile f;
  f.add_mapping("ep-inner", "tp-cp-ep-dp-pp");
  for (int k = 0; k < 12; ++k) {
    const std::uint64_t b = 1024ULL << static_cast<unsigned>(k);
    const double center = 20.0 * (1 + k) * scale * (1 + 0.003 * ((k * 5 + phase) % 7 - 3));
    auto s = pattern_samples(center, 100, 0.02, phase);
    f.add_point("ep-inner", "tp", "all_reduce", b, median_of(s), s);
  }
  return f;
}

TEST(Compare, AWholeRunThatMovedTogetherIsAFindingOfItsOwn) {
  testing::ScratchDir dir;
  const auto base = shifted_run(0, 1.0).write(dir / "base.h5");
  const auto slower = shifted_run(3, 1.12).write(dir / "slower.h5");
  const auto c = compare_two(base, slower, {});
  EXPECT_NEAR(std::exp(whole_run(c).effect), 1.12, 0.02);
  EXPECT_EQ(whole_run(c).verdict, Verdict::regressed);
  EXPECT_TRUE(c.regressed());
  EXPECT_EQ(points(c, Verdict::regressed), 0);  // no point stands out from the others
  EXPECT_NE(c.headline().find("whole run regression (per_iteration, concurrent): +1"), std::string::npos) << c.headline();
  EXPECT_EQ(c.gate_verdict(), GateVerdict::regression);
  const auto same = shifted_run(3, 1.0).write(dir / "same.h5");
  EXPECT_FALSE(compare_two(base, same, {}).regressed());
  EXPECT_EQ(compare_two(base, same, {}).gate_verdict(), GateVerdict::clean);
}

// Two runs of 60 tp all_reduce points with tight samples whose medians moved by a ±35% spread
// pattern times `whole`; with `jumps`, every 13th point instead jumps 10x, both ways.
Comparison scattered_rerun(const testing::ScratchDir& dir, double whole, bool jumps) {
  testing::FixtureFile a, b;
  a.add_mapping("m", "tp-cp-ep-dp-pp");
  b.add_mapping("m", "tp-cp-ep-dp-pp");
  for (int k = 0; k < 60; ++k) {
    const std::uint64_t bytes = 1000ULL + static_cast<std::uint64_t>(k);
    const double u = ((k * 37) % 60) / 59.0 * 2 - 1;  // spread pattern in [-1, 1]
    double move = whole * std::exp(0.3 * u);          // ±35%
    if (jumps && k % 13 == 5) move = k % 2 == 0 ? 10.0 : 0.1;
    auto sa = pattern_samples(50, 60, 0.01, k), sb = pattern_samples(50 * move, 60, 0.01, k + 1);
    a.add_point("m", "tp", "all_reduce", bytes, median_of(sa), sa);
    b.add_point("m", "tp", "all_reduce", bytes, median_of(sb), sb);
  }
  return compare_two(a.write(dir / "a.h5"), b.write(dir / "b.h5"));
}

TEST(Compare, APointMovingLikeTheRestOfANoisyRunIsNotFlagged) {
  // Honest reruns on an oversubscribed machine: points move by tens of percent, some by 10x,
  // both ways. Their samples are tight, so each move is "significant" within the runs; judged
  // against how all points moved, none stands out.
  testing::ScratchDir dir;
  const auto c = scattered_rerun(dir, 1.0, true);
  EXPECT_GT(std::count_if(c.result.points.begin(), c.result.points.end(),
                          [](const UnitFinding& r) { return r.effect > 0.05 && r.within_tested && r.within.p_slower < 1e-4; }),
            10);
  EXPECT_EQ(points(c, Verdict::regressed), 0);
  EXPECT_FALSE(c.regressed());
  EXPECT_GT(c.result.tail_nu[0], 0);  // the jumps made the tail heavy
  EXPECT_EQ(c.gate_verdict(), GateVerdict::clean);
}

TEST(Compare, AWholeRunSlowerBeyondTheThresholdButWithinTheScatterIsInconclusiveNeverClean) {
  // The same scattered rerun, every point 30% slower: the move is far beyond the 5% threshold but
  // not beyond how these points scatter, so one run on each side cannot call it either way.
  testing::ScratchDir dir;
  const auto c = scattered_rerun(dir, 1.3, false);
  EXPECT_NEAR(std::exp(whole_run(c).effect), 1.3, 0.05);
  EXPECT_EQ(whole_run(c).verdict, Verdict::inconclusive);
  EXPECT_FALSE(c.regressed());
  EXPECT_EQ(c.gate_verdict(), GateVerdict::inconclusive);
  EXPECT_EQ(exit_status(c.gate_verdict()), kExitInconclusive);
  EXPECT_NE(c.headline().find("slower, inconclusive"), std::string::npos) << c.headline();
  std::ostringstream text;
  make_compare_writer(OutputFormat::text)->write(c, text);
  EXPECT_NE(text.str().find("verdict: INCONCLUSIVE (exit status 3)"), std::string::npos) << text.str();
  const auto j = comparison_to_json(c);
  EXPECT_EQ(j["verdict"], "inconclusive");
  EXPECT_EQ(j["exit_status"], 3);
  EXPECT_EQ(j["counts"]["run"]["inconclusive"], 1);
}

TEST(Compare, BatchedPointsWithFewBatchesAreJudgedWithoutTheWithinRunTest) {
  testing::ScratchDir dir;
  testing::FixtureFile a, b;
  a.add_mapping("m", "tp-cp-ep-dp-pp");
  b.add_mapping("m", "tp-cp-ep-dp-pp");
  for (std::uint64_t bytes : {1024ULL, 2048ULL, 4096ULL, 8192ULL, 16384ULL, 32768ULL, 65536ULL, 131072ULL, 262144ULL}) {
    const double t = static_cast<double>(bytes) / 100;
    a.add_point("m", "tp", "all_reduce", bytes, t, {t, t * 1.01, t * 0.99}, {}, "batched");
    const double slow = bytes == 65536 ? 1.2 : 1.0;
    b.add_point("m", "tp", "all_reduce", bytes, t * slow, {t * slow, t * slow * 1.01, t * slow * 0.99}, {}, "batched");
  }
  const auto c = compare_two(a.write(dir / "a.h5"), b.write(dir / "b.h5"));
  EXPECT_TRUE(std::none_of(c.result.points.begin(), c.result.points.end(), [](const UnitFinding& r) { return r.within_tested; }));
  ASSERT_EQ(points(c, Verdict::regressed), 1);
}

// Two runs of 2 mappings × 7 (dim, op) families × 6 sizes whose points move by up to ±35%
// between the runs (a noisy machine); `ep_factor` slows every ep all_to_all point of the new run.
std::pair<testing::FixtureFile, testing::FixtureFile> noisy_runs(double ep_factor) {
  std::pair<testing::FixtureFile, testing::FixtureFile> runs;
  auto& [a, b] = runs;
  for (auto* f : {&a, &b}) {
    f->add_mapping("ep-inner", "tp-cp-ep-dp-pp");
    f->add_mapping("dp-inner", "tp-cp-dp-ep-pp");
  }
  const std::vector<std::pair<std::string, std::string>> families = {{"tp", "all_reduce"}, {"tp", "all_gather"}, {"tp", "reduce_scatter"},
                                                                     {"dp", "all_reduce"}, {"dp", "all_gather"}, {"dp", "reduce_scatter"},
                                                                     {"ep", "all_to_all"}};
  int k = 0;
  for (const std::string m : {"ep-inner", "dp-inner"}) {
    for (const auto& [dim, op] : families) {
      for (int size = 0; size < 6; ++size, ++k) {
        const std::uint64_t bytes = 1024ULL << static_cast<unsigned>(2 * size);
        const double u = ((k * 37) % 84) / 83.0 * 2 - 1;
        const double move = std::exp(0.3 * u) * (dim == "ep" ? ep_factor : 1.0);
        auto sa = pattern_samples(30, 40, 0.01, k), sb = pattern_samples(30 * move, 40, 0.01, k + 1);
        a.add_point(m, dim, op, bytes, median_of(sa), sa);
        b.add_point(m, dim, op, bytes, median_of(sb), sb);
      }
    }
  }
  return runs;
}

TEST(Compare, ACollectiveThatMovedAsAWholeIsFlaggedAsAFamily) {
  testing::ScratchDir dir;
  auto [a, b] = noisy_runs(2.0);
  const auto c = compare_two(a.write(dir / "a.h5"), b.write(dir / "b.h5"));
  const auto ep = std::find_if(c.families.begin(), c.families.end(),
                               [](const Family& f) { return f.kind == UnitKind::collective && f.dim == "ep" && f.op == "all_to_all"; });
  ASSERT_NE(ep, c.families.end());
  const auto& u = c.result.families[static_cast<std::size_t>(ep - c.families.begin())];
  EXPECT_EQ(ep->points, 12);
  EXPECT_NEAR(std::exp(u.effect), 2.0, 0.5);  // against the rest of the run, which the ep points pulled up a little
  EXPECT_EQ(u.verdict, Verdict::regressed);
  // No family of another dimension regressed: the ep points moved, and only they.
  for (std::size_t f = 0; f < c.families.size(); ++f) {
    if (c.result.families[f].verdict == Verdict::regressed) {
      EXPECT_TRUE(c.families[f].dim == "ep" || c.families[f].op == "all_to_all") << c.families[f].name();
    }
  }
  EXPECT_TRUE(c.regressed());
  EXPECT_NE(c.headline().find("ep all_to_all (every size) +"), std::string::npos) << c.headline();

  auto [h1, h2] = noisy_runs(1.0);
  const auto honest = compare_two(h1.write(dir / "h1.h5"), h2.write(dir / "h2.h5"));
  EXPECT_FALSE(honest.regressed()) << honest.headline();
  EXPECT_EQ(honest.result.count(UnitKind::collective, Verdict::regressed), 0);
}

TEST(Compare, ImprovementIsReportedAndDoesNotFail) {
  testing::ScratchDir dir;
  const auto base = make_run(0).write(dir / "base.h5");
  const auto next = make_run(3, 0.85).write(dir / "new.h5");
  const auto c = compare_two(base, next);
  EXPECT_FALSE(c.regressed());
  EXPECT_EQ(points(c, Verdict::improved), 1);
}

TEST(Compare, RowsMatchByStructureNotByName) {
  testing::ScratchDir dir;
  const auto base = make_run(0).write(dir / "base.h5");
  // The same groups under another name are still compared (and the plant still found) ...
  const auto renamed = make_run(3, 1.10, "renamed").write(dir / "renamed.h5");
  const auto c = compare_two(base, renamed, {});
  EXPECT_EQ(c.points.size(), 12U);
  EXPECT_EQ(points(c, Verdict::regressed), 1);
  EXPECT_EQ(c.renamed, (std::vector<std::string>{"ep-inner = renamed"}));
  // ... and a name whose groups changed is not.
  testing::FixtureFile other;
  other.add_mapping("ep-inner", "tp-cp-ep-dp-pp", {0, 3, 1, 2});
  for (std::uint64_t b : {1024ULL, 16384ULL, 65536ULL}) other.add_point("ep-inner", "tp", "all_reduce", b, 10.0, pattern_samples(10, 50));
  other.add_mapping("dp-inner", "tp-cp-dp-ep-pp");
  other.add_point("dp-inner", "tp", "all_reduce", 1024, 20.0, pattern_samples(20, 50));
  const auto restructured = other.write(dir / "other.h5");
  const auto d = compare_two(base, restructured, {});
  EXPECT_EQ(d.points.size(), 1U);
  EXPECT_EQ(d.restructured, (std::vector<std::string>{"ep-inner"}));
  EXPECT_EQ(d.only_base, 11);
  EXPECT_EQ(d.only_new, 3);
}

TEST(Compare, NothingInCommonIsBadInput) {
  testing::ScratchDir dir;
  const auto base = make_run(0).write(dir / "base.h5");
  testing::FixtureFile other;
  other.add_mapping("ep-inner", "tp-cp-ep-dp-pp");
  other.add_point("ep-inner", "tp", "all_reduce", 999, 10.0);  // a size base never measured
  const auto next = other.write(dir / "other.h5");
  try {
    compare_two(base, next);
    FAIL() << "two files with nothing in common compared";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no measured point in common"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

TEST(Compare, WrongResultsInTheNewRunFail) {
  testing::ScratchDir dir;
  auto f = make_run(0);
  f.add_point("dp-inner", "tp", "all_reduce", 4096, 20.0, pattern_samples(20, 50)).row.wrong = 3;
  auto g = make_run(0);
  g.add_point("dp-inner", "tp", "all_reduce", 4096, 20.0, pattern_samples(20, 50));
  const auto good = g.write(dir / "good.h5");
  const auto bad = f.write(dir / "bad.h5");
  const auto c = compare_two(good, bad, {});
  EXPECT_TRUE(c.regressed());
  EXPECT_EQ(c.wrong_points(), 1);
  EXPECT_NE(c.headline().find("WRONG"), std::string::npos);
}

TEST(Compare, PointsWithoutSamplesAreJudgedByTheThresholdAlone) {
  testing::ScratchDir dir;
  testing::FixtureFile a, b;
  a.add_mapping("m", "tp-cp-ep-dp-pp");
  b.add_mapping("m", "tp-cp-ep-dp-pp");
  a.add_point("m", "tp", "all_reduce", 1024, 10.0);
  b.add_point("m", "tp", "all_reduce", 1024, 11.0);
  const auto c = compare_two(a.write(dir / "a.h5"), b.write(dir / "b.h5"));
  ASSERT_EQ(c.points.size(), 1U);
  EXPECT_FALSE(c.result.points[0].within_tested);
  EXPECT_EQ(c.result.points[0].verdict, Verdict::regressed);
}

TEST(Compare, ProvenanceChangesLeadTheHeadlineAndPerLaunchVariablesStayQuiet) {
  testing::ScratchDir dir;
  auto a = make_run(0);
  auto b = make_run(3, 1.10);
  a.set_version("nccl", "2.27.5");
  b.set_version("nccl", "2.27.7");
  a.set_env("NCCL_PROTO", "Simple");
  b.set_env("OMPI_MCA_orte_hnp_uri", "999.0;tcp://10.0.0.2:5000");
  b.set_env("SLURM_JOB_ID", "4242");
  a.set_doctor_json(R"({"schema":"meshbench.doctor","versions":{"libfabric":{"n0":"1.17.0","n1":"1.17.0"}}})");
  b.set_doctor_json(R"({"schema":"meshbench.doctor","versions":{"libfabric":{"n0":"1.22.0","n1":"1.17.0"}}})");
  const auto base = a.write(dir / "base.h5");
  const auto next = b.write(dir / "new.h5");
  const auto c = compare_two(base, next);
  auto has = [&](const std::string& kind, const std::string& name, const std::string& before, const std::string& after) {
    return std::any_of(c.changes.begin(), c.changes.end(), [&](const ProvenanceChange& x) {
      return x.kind == kind && x.name == name && x.before == before && x.after == after;
    });
  };
  EXPECT_TRUE(has("version", "nccl", "2.27.5", "2.27.7"));
  EXPECT_TRUE(has("environment", "NCCL_PROTO", "Simple", "(absent)"));
  EXPECT_TRUE(has("doctor", "libfabric", "1.17.0", "mixed: 1.17.0, 1.22.0"));
  EXPECT_EQ(c.hidden_changes, 2);  // the ORTE URI and the job id
  EXPECT_EQ(c.headline().rfind("nccl 2.27.5 → 2.27.7", 0), 0U) << c.headline();
  EXPECT_NE(c.headline().find("ep all_to_all at 64 KiB (ep-inner, per_iteration) +"), std::string::npos) << c.headline();

  std::ostringstream text;
  make_compare_writer(OutputFormat::text)->write(c, text);
  const std::string t = text.str();
  EXPECT_LT(t.find("2.27.7"), t.find("all_to_all")) << "provenance must come above the numbers\n" << t;
  EXPECT_NE(t.find("verdict: REGRESSION"), std::string::npos);
  std::ostringstream json;
  make_compare_writer(OutputFormat::json)->write(c, json);
  const auto j = nlohmann::json::parse(json.str());
  EXPECT_EQ(j["schema"], "meshbench.compare");
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["judge"]["noise"], "points");
  EXPECT_EQ(j["verdict"], "regression");
  EXPECT_EQ(j["exit_status"], 1);
  EXPECT_EQ(j["counts"]["point"]["regressed"], 1);
  EXPECT_EQ(j["points"].size(), 12U);
  EXPECT_EQ(j["base"].size(), 1U);
  EXPECT_THROW(make_compare_writer(OutputFormat::csv), InputError);
}

}  // namespace
}  // namespace meshbench::analysis
