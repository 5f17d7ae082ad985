// compare BASE… -- NEW… on written files: matching, families, the whole-run verdict, bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/compare/compare.hpp"
#include "analysis/compare/compare_writers.hpp"
#include "common/error.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

// Two mappings × (tp all_reduce, ep all_to_all) × 4 sizes; each run `scale` slower everywhere,
// with a small run-specific wobble per point (`phase`) so that baselines differ a little.
testing::FixtureFile make_set_run(int phase, double scale = 1.0, int rounds = 0) {
  testing::FixtureFile f;
  f.add_mapping("ep-inner", "tp-cp-ep-dp-pp");
  f.add_mapping("dp-inner", "tp-cp-dp-ep-pp");
  int k = 0;
  for (const std::string m : {"ep-inner", "dp-inner"}) {
    for (std::uint64_t b : {1024ULL, 16384ULL, 65536ULL, 262144ULL}) {
      for (const auto& [dim, op, base] : {std::tuple{"tp", "all_reduce", 20.0}, std::tuple{"ep", "all_to_all", 50.0}}) {
        // ±1.5% per point and run, a fixed irregular pattern.
        const double wobble = 1.0 + 0.015 * std::sin(1.7 * (k++) + 2.3 * phase);
        const double t = base * (1 + static_cast<double>(b) / 65536.0) * wobble * scale;
        auto& point = f.add_point(m, dim, op, b, t);
        for (int r = 0; r < rounds; ++r) {
          point.rounds.push_back({point.row.point, r, t * (1.0 + 0.01 * std::sin(0.9 * r + k))});
        }
      }
    }
  }
  return f;
}

std::vector<results::ResultsFile> open_runs(const testing::ScratchDir& dir, const std::string& prefix,
                                            const std::vector<testing::FixtureFile>& runs) {
  std::vector<results::ResultsFile> out;
  for (std::size_t i = 0; i < runs.size(); ++i)
    out.push_back(results::ResultsFile::open(runs[i].write(dir / (prefix + std::to_string(i) + ".h5"))));
  return out;
}

// The same run, launched at `at` (ISO-8601 UTC).
testing::FixtureFile started(testing::FixtureFile f, const std::string& at) {
  f.run().started_at = at;
  return f;
}

// What `call` threw as bad input, or "(accepted)".
template <class Call>
std::string message(Call&& call) {
  try {
    call();
  } catch (const InputError& e) {
    return std::string(e.what());
  }
  return std::string("(accepted)");
}

// The same run, its every visit probed at `ns` (the machine state compare reads).
testing::FixtureFile in_state(testing::FixtureFile f, double ns);

TEST(CompareSetMachineState, BaselinesInAnotherStateAreSetAsideWhileTwoRemain) {
  EXPECT_EQ(select_baselines_by_state({60, 62, 330}, {58}).kept, (std::vector<std::size_t>{0, 1}));
  EXPECT_FALSE(select_baselines_by_state({60, 62, 330}, {58}).differs);
  // Runs not probed match anything; new runs not probed keep every baseline.
  EXPECT_EQ(select_baselines_by_state({0, 62, 330}, {58}).kept, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(select_baselines_by_state({60, 330, 330}, {0}).kept, (std::vector<std::size_t>{0, 1, 2}));
  // One baseline in the new runs' state is too few: every baseline is kept, and it says so.
  const auto one = select_baselines_by_state({60, 330, 330}, {58, 61});
  EXPECT_TRUE(one.differs);
  EXPECT_EQ(one.kept, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_FALSE(select_baselines_by_state({60, 70, 90}, {100}).differs);  // within 2x: one state
  EXPECT_TRUE(machine_states_differ(60, 121));
  EXPECT_FALSE(machine_states_differ(60, 120));
  EXPECT_FALSE(machine_states_differ(0, 330));
}

TEST(CompareSetMachineState, ABaselineOfAnotherLayoutIsRefusedEvenWhenItsStateWouldSetItAside) {
  testing::ScratchDir dir;
  auto other = in_state(make_set_run(2), 330);
  other.layout().tp = 4;
  const auto base = open_runs(dir, "b", {in_state(make_set_run(0), 60), in_state(make_set_run(1), 61), other});
  const auto next = open_runs(dir, "n", {in_state(make_set_run(3), 59)});
  const auto error = message([&] { compare_sets(base, next, {}); });
  EXPECT_NE(error.find("the baseline set mixes layouts"), std::string::npos) << error;
}

TEST(CompareSetMachineState, ARunWithAQuarterOfItsVisitsFarCountsAsFar) {
  // A run's state is the upper quartile of its kept readings: 8 visits, k of them far.
  testing::ScratchDir dir;
  const auto with_far = [&](int far) {
    auto f = make_set_run(0);
    int i = 0;
    for (auto& p : f.points()) {
      const auto& r = p.row;
      p.states.push_back({r.point, 0, 1, i++ < far ? 320.0 : 80.0, 1.0, true});
    }
    return f;
  };
  const auto points = static_cast<int>(make_set_run(0).points().size());
  ASSERT_GE(points, 4);
  const int quarter = points / 4;
  const auto ns_of = [&](int far) {
    const auto name = "far" + std::to_string(far) + ".h5";
    return core_to_core_ns(results::ResultsFile::open(with_far(far).write(dir / name)));
  };
  EXPECT_DOUBLE_EQ(ns_of(0), 80.0);
  EXPECT_DOUBLE_EQ(ns_of(quarter), 80.0);      // a quarter far: still near
  EXPECT_DOUBLE_EQ(ns_of(points / 2), 320.0);  // half far: the median would still read near
  EXPECT_DOUBLE_EQ(ns_of(points), 320.0);
}

TEST(CompareSetMachineState, ARunSlowerOnlyInTheMachinesSlowStateIsNotARegression) {
  testing::ScratchDir dir;
  // Two baselines in the fast state and one slow run in the slow state; an honest new run in
  // the fast state: the slow baseline is set aside, nothing regressed.
  const auto base =
      open_runs(dir, "b", {in_state(make_set_run(0), 60), in_state(make_set_run(1), 61), in_state(make_set_run(2, 3.0), 330)});
  const auto next = open_runs(dir, "n", {in_state(make_set_run(3), 59)});
  const auto c = compare_sets(base, next, {});
  ASSERT_EQ(c.set_aside.size(), 1U);
  EXPECT_NE(c.set_aside.front().path.find("b2.h5"), std::string::npos);
  EXPECT_EQ(c.base.size(), 2U);
  EXPECT_FALSE(c.state_differs);
  EXPECT_FALSE(c.regressed());
  EXPECT_NE(c.headline().find("1 baseline(s) in another machine state set aside"), std::string::npos) << c.headline();

  // A new run 2x slower in the slow state, against fast baselines only: the machine's state
  // is named and the slowdown is inconclusive, not a regression.
  const auto fast = open_runs(dir, "f", {in_state(make_set_run(0), 60), in_state(make_set_run(1), 61), in_state(make_set_run(2), 62)});
  const auto slow = open_runs(dir, "s", {in_state(make_set_run(3, 2.0), 330)});
  const auto d = compare_sets(fast, slow, {});
  EXPECT_TRUE(d.state_differs);
  EXPECT_FALSE(d.regressed());
  EXPECT_GT(d.result.count(UnitKind::run, Verdict::inconclusive), 0);
  EXPECT_NE(d.headline().find("machine state differs"), std::string::npos) << d.headline();
  const bool named = std::any_of(d.changes.begin(), d.changes.end(), [](const ProvenanceChange& ch) {
    return ch.kind == "machine" && ch.before == "60 ns" && ch.after == "330 ns";
  });
  EXPECT_TRUE(named);

  // The same slowdown in the baselines' own state is the whole-run regression it always was.
  const auto same = open_runs(dir, "t", {in_state(make_set_run(3, 2.0), 61)});
  const auto e = compare_sets(fast, same, {});
  EXPECT_FALSE(e.state_differs);
  EXPECT_TRUE(e.regressed());
}

TEST(CompareSet, HonestRunsAgainstABaselineSetAreUnchanged) {
  testing::ScratchDir dir;
  const auto base = open_runs(dir, "b", {make_set_run(0), make_set_run(1), make_set_run(2)});
  const auto next = open_runs(dir, "n", {make_set_run(3)});
  const auto c = compare_sets(base, next, {});
  EXPECT_EQ(c.points.size(), 16U);
  EXPECT_FALSE(c.regressed());
  // 8 op-size families, 2 collectives, 2 dimensions, 1 whole run.
  EXPECT_EQ(c.families.size(), 13U);
  EXPECT_NE(c.headline().find("no regression in 16 compared points"), std::string::npos) << c.headline();
}

// make_run with every point measured batched too, the batched times `batched_scale` slower and
// one op at one size (tp all_reduce at 64 KiB, both mappings and modes) `op_scale` slower.
testing::FixtureFile timed_both_ways(int phase, double batched_scale = 1.0, double op_scale = 1.0) {
  auto f = make_set_run(phase, 1.0, 3);
  const auto scale = [](results::PointRecord& p, double by) {
    p.row.t_median_us *= by;
    for (auto& round : p.rounds) round.t_median_us *= by;
  };
  const auto per_iteration = f.points();
  for (const auto& p : per_iteration) {
    const auto& r = p.row;
    auto& batched = f.add_point(r.point.mapping, r.point.dim, r.point.op, r.point.bytes, r.t_median_us, {}, {}, "batched");
    batched.rounds = p.rounds;
    for (auto& round : batched.rounds) round.point.timing = "batched";
    scale(batched, 0.9 * batched_scale);
  }
  for (auto& p : f.points()) {
    if (p.row.point.op == "all_reduce" && p.row.point.bytes == 65536) scale(p, op_scale);
  }
  return f;
}

TEST(CompareSet, OneOpAtOneSizeIsOneFamilyAcrossTimingModes) {
  testing::ScratchDir dir;
  const auto base = open_runs(dir, "b", {timed_both_ways(0), timed_both_ways(1), timed_both_ways(2)});
  const auto next = open_runs(dir, "n", {timed_both_ways(3, 1.3, 1.25), timed_both_ways(4, 1.3, 1.25)});
  const auto c = compare_sets(base, next, {});
  // 8 op-size families (each of 4 points: 2 mappings × 2 modes), 2 × 2 collectives, 2 × 2
  // dimensions, 2 whole runs.
  EXPECT_EQ(c.families.size(), 18U);
  const auto op = std::find_if(c.families.begin(), c.families.end(),
                               [](const Family& f) { return f.kind == UnitKind::op_size && f.op == "all_reduce" && f.bytes == 65536; });
  ASSERT_NE(op, c.families.end());
  EXPECT_EQ(op->points, 4);
  EXPECT_EQ(op->timing, "batched, per_iteration");
  // 25% slower than the rest of each run, though its batched points are 1.3 × 1.25 slower than
  // the baselines': each mode's own shift is taken out.
  const auto& u = c.result.families[static_cast<std::size_t>(op - c.families.begin())];
  EXPECT_NEAR(std::exp(u.effect), 1.25, 0.03);
  EXPECT_EQ(u.verdict, Verdict::regressed);
  EXPECT_NE(c.headline().find("all_reduce at 64 KiB +2"), std::string::npos) << c.headline();
}

TEST(CompareSet, AWholeRunSlowerEverywhereIsAWholeRunRegressionWithTheChangeBesideIt) {
  testing::ScratchDir dir;
  const auto base = open_runs(dir, "b", {make_set_run(0), make_set_run(1), make_set_run(2)});
  auto slow = make_set_run(3, 1.5);
  slow.set_env("OMPI_MCA_btl", "tcp,self");
  const auto next = open_runs(dir, "n", {slow});
  const auto c = compare_sets(base, next, {});
  ASSERT_TRUE(c.regressed());
  const auto& whole = *std::find_if(c.families.begin(), c.families.end(), [](const Family& f) { return f.kind == UnitKind::run; });
  const auto& u = c.result.families[static_cast<std::size_t>(&whole - c.families.data())];
  EXPECT_EQ(u.verdict, Verdict::regressed);
  EXPECT_NEAR(std::exp(u.effect), 1.5, 0.03);
  const std::string head = c.headline();
  EXPECT_NE(head.find("OMPI_MCA_btl (absent) → tcp,self"), std::string::npos) << head;
  EXPECT_NE(head.find("whole run regression"), std::string::npos) << head;
  std::ostringstream text;
  make_compare_writer(OutputFormat::text)->write(c, text);
  EXPECT_NE(text.str().find("verdict: REGRESSION of the whole run (exit status 1)"), std::string::npos) << text.str();
  const auto j = comparison_to_json(c);
  EXPECT_EQ(j["schema_version"], 2);
  EXPECT_EQ(j["judge"]["noise"], "baseline_runs");
  EXPECT_EQ(j["judge"]["pairing"], "none");
  EXPECT_EQ(j["verdict"], "regression");
  EXPECT_EQ(j["exit_status"], 1);
  EXPECT_EQ(j["counts"]["run"]["regressed"], 1);
  // Points and families are judged relative to their run's shift: the run carries the finding.
  EXPECT_EQ(j["counts"]["point"]["regressed"], 0);
  EXPECT_EQ(j["counts"]["op_size"]["regressed"], 0);
}

TEST(CompareSet, WrongResultsInANewRunAreARegressionOfTheirOwn) {
  testing::ScratchDir dir;
  const auto base = open_runs(dir, "b", {make_set_run(0), make_set_run(1), make_set_run(2)});
  auto bad = make_set_run(3);
  bad.add_point("ep-inner", "tp", "all_reduce", 1ULL << 20, 80.0).row.wrong = 7;  // a point only it has: not compared
  auto broken = make_set_run(3);
  const auto next = open_runs(dir, "n", {bad});
  EXPECT_FALSE(compare_sets(base, next, {}).regressed());
  // The same point in every run, wrong in the new one only.
  std::vector<testing::FixtureFile> with_point;
  for (int i = 0; i < 3; ++i) {
    auto f = make_set_run(i);
    f.add_point("ep-inner", "tp", "all_reduce", 1ULL << 20, 80.0);
    with_point.push_back(f);
  }
  broken.add_point("ep-inner", "tp", "all_reduce", 1ULL << 20, 80.0).row.wrong = 7;
  const auto c = compare_sets(open_runs(dir, "w", with_point), open_runs(dir, "x", {broken}), {});
  EXPECT_EQ(c.wrong_points(), 1);
  EXPECT_TRUE(c.regressed());
  EXPECT_NE(c.headline().find("1 point(s) give WRONG results"), std::string::npos) << c.headline();
}

TEST(CompareSet, PointsFromRunsWithoutRoundsAreCountedAndNoted) {
  testing::ScratchDir dir;
  const auto bare =
      compare_sets(open_runs(dir, "b", {make_set_run(0), make_set_run(1), make_set_run(2)}), open_runs(dir, "n", {make_set_run(3)}), {});
  EXPECT_EQ(bare.points_without_rounds(), 16);
  std::ostringstream text;
  make_compare_writer(OutputFormat::text)->write(bare, text);
  EXPECT_NE(text.str().find("measure gate runs with run --rounds 3"), std::string::npos) << text.str();
  // Every run with three rounds: nothing to note. One run without them: all its points count.
  const auto rounds = compare_sets(open_runs(dir, "r", {make_set_run(0, 1, 3), make_set_run(1, 1, 3), make_set_run(2, 1, 3)}),
                                   open_runs(dir, "s", {make_set_run(3, 1, 3)}), {});
  EXPECT_EQ(rounds.points_without_rounds(), 0);
  std::ostringstream quiet;
  make_compare_writer(OutputFormat::text)->write(rounds, quiet);
  EXPECT_EQ(quiet.str().find("measure gate runs with"), std::string::npos);
  const auto mixed = compare_sets(open_runs(dir, "x", {make_set_run(0, 1, 3), make_set_run(1, 1, 3), make_set_run(2)}),
                                  open_runs(dir, "y", {make_set_run(3, 1, 3)}), {});
  EXPECT_EQ(mixed.points_without_rounds(), 16);
}

TEST(CompareSet, OneBaselineWithRoundsIsEnoughWithoutRoundsIsNot) {
  testing::ScratchDir dir;
  const auto next = open_runs(dir, "n", {make_set_run(3, 1.3, 5), make_set_run(4, 1.3, 5)});
  const auto lone = open_runs(dir, "b", {make_set_run(0)});
  // Against one new run it is the two-file form, judged from the points; against two, refused.
  EXPECT_EQ(compare_sets(lone, open_runs(dir, "m", {make_set_run(3)}), {}).noise, NoiseSource::points);
  try {
    compare_sets(lone, open_runs(dir, "m2", {make_set_run(3), make_set_run(4)}), {});
    FAIL() << "one baseline without rounds was accepted against two new runs";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("two or more baseline runs"), std::string::npos) << e.what();
  }
  const auto with_rounds = open_runs(dir, "r", {make_set_run(0, 1.0, 5)});
  ASSERT_EQ(with_rounds[0].round_medians().size(), 16U * 5U);
  const auto c = compare_sets(with_rounds, next, {});
  EXPECT_EQ(c.noise, NoiseSource::baseline_runs);
  EXPECT_TRUE(c.regressed());
  EXPECT_EQ(c.points.front().rounds, 5);
  EXPECT_GT(c.result.points.front().round_sigma, 0.0);
}

TEST(CompareSet, BadInputIsOneLine) {
  testing::ScratchDir dir;
  const auto base = open_runs(dir, "b", {make_set_run(0), make_set_run(1)});
  auto other = make_set_run(2);
  other.layout().tp = 4;
  const auto mixed = open_runs(dir, "x", {make_set_run(0), other});
  const auto next = open_runs(dir, "n", {make_set_run(3)});
  EXPECT_NE(message([&] { compare_sets(mixed, next, {}); }).find("the baseline set mixes layouts"), std::string::npos);
  JudgeOptions confirm;
  confirm.confirm = true;
  EXPECT_NE(message([&] { compare_sets(base, next, confirm); }).find("--confirm needs at least two new runs"), std::string::npos);
  std::filesystem::create_directories(dir / "empty");
  EXPECT_NE(message([&] { expand_results_paths((dir / "empty").string()); }).find("holds no .h5 results files"), std::string::npos);
  for (const auto& m :
       {message([&] { compare_sets(mixed, next, {}); }), message([&] { expand_results_paths((dir / "empty").string()); })}) {
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(CompareSet, HistoryIsTakenInLaunchOrderAndMustBeTheBaselinesConfiguration) {
  testing::ScratchDir dir;
  std::vector<testing::FixtureFile> earlier;
  for (int i = 0; i < 6; ++i) earlier.push_back(started(make_set_run(10 + i), "2026-12-05T01:0" + std::to_string(5 - i) + ":00Z"));
  const auto history = open_runs(dir, "h", earlier);
  const auto base = open_runs(dir, "b", {make_set_run(0)});
  const auto next = open_runs(dir, "n", {make_set_run(1)});
  // One baseline without rounds is enough once a history gives the noise.
  const auto c = compare_sets(base, next, {}, history);
  ASSERT_EQ(c.history.size(), 6U);
  for (std::size_t i = 0; i < c.history.size(); ++i) EXPECT_EQ(c.history[i].started_at, "2026-12-05T01:0" + std::to_string(i) + ":00Z");
  EXPECT_FALSE(c.regressed());
  std::ostringstream text;
  make_compare_writer(OutputFormat::text)->write(c, text);
  EXPECT_NE(text.str().find("history: 6 earlier run(s), started 2026-12-05T01:00:00Z to 2026-12-05T01:05:00Z; 0 step(s)"),
            std::string::npos);

  const std::vector<results::ResultsFile> four(history.begin(), history.begin() + 4);
  EXPECT_NE(message([&] { compare_sets(base, next, {}, four); }).find("--history holds 4 run(s) and needs at least 5"), std::string::npos);
  auto other = started(make_set_run(20), "2026-12-05T01:09:00Z");
  other.layout().tp = 4;
  auto mixed = history;
  mixed.push_back(results::ResultsFile::open(other.write(dir / "other.h5")));
  const auto wrong = message([&] { compare_sets(base, next, {}, mixed); });
  EXPECT_NE(wrong.find("is not a run of the baselines' configuration"), std::string::npos) << wrong;
  auto undated = history;
  undated.push_back(results::ResultsFile::open(started(make_set_run(21), "").write(dir / "undated.h5")));
  const auto no_time = message([&] { compare_sets(base, next, {}, undated); });
  EXPECT_NE(no_time.find("has no start time"), std::string::npos) << no_time;
  // The gate's whole folder passed as its history: a baseline or new run among it is refused.
  auto with_judged = history;
  with_judged.push_back(next.front());
  const auto judged = message([&] { compare_sets(base, next, {}, with_judged); });
  EXPECT_NE(judged.find("is also a new run"), std::string::npos) << judged;
  with_judged.back() = base.front();
  EXPECT_NE(message([&] { compare_sets(base, next, {}, with_judged); }).find("is also a baseline"), std::string::npos);
  for (const auto& m : {wrong, no_time, judged}) EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

TEST(CompareSet, FoldersExpandToTheirResultsFilesInNameOrder) {
  testing::ScratchDir dir;
  std::filesystem::create_directories(dir / "runs");
  make_set_run(1).write(dir / "runs/b.h5");
  make_set_run(0).write(dir / "runs/a.h5");
  std::ofstream(dir / "runs/notes.txt") << "not a results file\n";
  const auto paths = expand_results_paths((dir / "runs").string());
  ASSERT_EQ(paths.size(), 2U);
  EXPECT_EQ(std::filesystem::path(paths[0]).filename(), "a.h5");
  EXPECT_EQ(std::filesystem::path(paths[1]).filename(), "b.h5");
  EXPECT_EQ(expand_results_paths((dir / "runs/a.h5").string()).size(), 1U);
}

testing::FixtureFile in_state(testing::FixtureFile f, double ns) {
  for (auto& p : f.points()) {
    const auto& r = p.row;
    p.states.push_back({r.point, 0, 1, ns, 1.0, true});
  }
  return f;
}

TEST(CompareSetInterleaved, EachNewRunIsPairedWithTheBaselinesLaunchedBeforeAndAfterIt) {
  using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
  // A B A B A, the sets given in any order.
  EXPECT_EQ(launched_beside({"2026-12-04T10:00:00Z", "2026-12-04T10:00:10Z", "2026-12-04T10:00:20Z"},
                            {"2026-12-04T10:00:05Z", "2026-12-04T10:00:15Z"}),
            (Pairs{{0, 0}, {0, 1}, {1, 1}, {1, 2}}));
  EXPECT_EQ(launched_beside({"2026-12-04T10:00:20Z", "2026-12-04T10:00:00Z", "2026-12-04T10:00:10Z"},
                            {"2026-12-04T10:00:15Z", "2026-12-04T10:00:05Z"}),
            (Pairs{{1, 1}, {1, 2}, {0, 2}, {0, 0}}));
  // A new run at an end has one neighbour; two new runs in a row share theirs.
  EXPECT_EQ(launched_beside({"2026-12-04T10:00:10Z", "2026-12-04T10:00:40Z"},
                            {"2026-12-04T10:00:00Z", "2026-12-04T10:00:20Z", "2026-12-04T10:00:30Z"}),
            (Pairs{{0, 0}, {1, 0}, {1, 1}, {2, 0}, {2, 1}}));
}

TEST(CompareSetInterleaved, TheMachineStateIsMatchedPairByPair) {
  using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
  // B0 N0 B1 N1 B2, ten seconds apart.
  const std::vector<std::string> base_at{"2026-12-04T10:00:00Z", "2026-12-04T10:00:20Z", "2026-12-04T10:00:40Z"};
  const std::vector<std::string> new_at{"2026-12-04T10:00:10Z", "2026-12-04T10:00:30Z"};
  // N0 fast beside a fast B0, N1 slow beside slow B1 and B2: N0 has no fast baseline after it.
  auto s = select_pairs_by_state(base_at, new_at, {60, 330, 330}, {60, 330});
  EXPECT_EQ(s.next, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(s.base, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(s.beside, (Pairs{{0, 0}, {1, 1}, {1, 2}}));
  // Each new run reaches past its neighbour in the other state to the nearest baseline of its
  // own (N0 slow: B1 after it, none before; N1 fast: B0 before it, none after).
  s = select_pairs_by_state(base_at, new_at, {60, 330, 330}, {330, 60});
  EXPECT_EQ(s.next, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(s.base, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(s.beside, (Pairs{{0, 1}, {1, 0}}));
  // Both new runs fast beside the one fast baseline between them; the slow ones are left out and
  // the pairs re-indexed into the runs kept.
  s = select_pairs_by_state(base_at, new_at, {330, 60, 330}, {60, 60});
  EXPECT_EQ(s.next, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(s.base, (std::vector<std::size_t>{1}));
  EXPECT_EQ(s.beside, (Pairs{{0, 0}, {1, 0}}));
  // A new run with no baseline of its state on either side is left out.
  s = select_pairs_by_state(base_at, new_at, {330, 330, 330}, {60, 330});
  EXPECT_EQ(s.next, (std::vector<std::size_t>{1}));
  EXPECT_EQ(s.beside, (Pairs{{0, 1}, {0, 2}}));
  // Runs never probed (0) match any state.
  s = select_pairs_by_state(base_at, new_at, {0, 330, 0}, {330, 0});
  EXPECT_EQ(s.beside, (Pairs{{0, 0}, {0, 1}, {1, 1}, {1, 2}}));
}

// B0 N0 B1 N1 B2, one minute apart, after six history runs in the slow state.
struct InterleavedWindow {
  testing::ScratchDir dir;
  std::vector<results::ResultsFile> history;
  // Runs launched a minute apart from `hour`:00.
  std::vector<results::ResultsFile> launched(std::vector<testing::FixtureFile> runs, const std::string& prefix,
                                             const std::string& hour = "02") const {
    for (std::size_t i = 0; i < runs.size(); ++i) runs[i] = started(runs[i], "2026-12-05T" + hour + ":0" + std::to_string(i) + ":00Z");
    return open_runs(dir, prefix, runs);
  }
  InterleavedWindow() {
    std::vector<testing::FixtureFile> earlier;
    for (int i = 0; i < 6; ++i) earlier.push_back(in_state(make_set_run(10 + i), 330));
    history = launched(earlier, "h", "01");
  }
};

TEST(CompareSetInterleaved, NewRunsBesideOneBaselineOfTheirStateAreJudgedAgainstIt) {
  // The machine is 30% faster in its fast state. Both new runs are fast, beside the one fast
  // baseline between them: a state chosen for the whole set keeps one baseline, too few, and
  // calls every slowdown inconclusive; pair by pair, with a history for the noise, the two
  // adjacent pairs are judged.
  InterleavedWindow w;
  const auto launch = [&](double new_scale, const std::string& prefix) {
    const auto runs =
        w.launched({in_state(make_set_run(0), 330), in_state(make_set_run(3, 0.7 * new_scale), 60), in_state(make_set_run(1, 0.7), 60),
                    in_state(make_set_run(4, 0.7 * new_scale), 60), in_state(make_set_run(2), 330)},
                   prefix);
    return std::pair{std::vector{runs[0], runs[2], runs[4]}, std::vector{runs[1], runs[3]}};
  };
  JudgeOptions o;
  o.interleaved = true;
  const auto [base, next] = launch(1.0, "honest");
  const auto honest = compare_sets(base, next, o, w.history);
  EXPECT_FALSE(honest.state_differs);
  EXPECT_FALSE(honest.regressed()) << honest.headline();
  ASSERT_EQ(honest.base.size(), 1U);
  EXPECT_NE(honest.base.front().path.find("honest2.h5"), std::string::npos);
  EXPECT_EQ(honest.set_aside.size(), 2U);
  EXPECT_TRUE(honest.next_set_aside.empty());

  const auto [base2, slower] = launch(1.3, "slow");
  const auto planted = compare_sets(base2, slower, o, w.history);
  EXPECT_FALSE(planted.state_differs);
  EXPECT_TRUE(planted.regressed()) << planted.headline();
  EXPECT_EQ(planted.result.count(UnitKind::run, Verdict::regressed), 1) << planted.headline();
  // Without a history one baseline cannot give the noise: as a plain set, the state differs.
  const auto alone = compare_sets(base2, slower, o);
  EXPECT_TRUE(alone.state_differs);
  EXPECT_FALSE(alone.regressed());
}

TEST(CompareSetInterleaved, ANewRunWithNoBaselineOfItsStateBesideItIsSetAside) {
  // B0 N0 B1 N1 B2 all slow but N1, fast, whose small sizes gain most (the machine's fast
  // spell): N1 is judged against nothing and named; N0 against B0 and B1.
  InterleavedWindow w;
  auto fast = make_set_run(4, 0.7);
  for (auto& p : fast.points()) {
    if (p.row.point.bytes < 65536) p.row.t_median_us *= 0.5;
  }
  const auto runs = w.launched({in_state(make_set_run(0), 330), in_state(make_set_run(3), 330), in_state(make_set_run(1), 330),
                                in_state(fast, 60), in_state(make_set_run(2), 330)},
                               "r");
  JudgeOptions o;
  o.interleaved = true;
  const auto c = compare_sets({runs[0], runs[2], runs[4]}, {runs[1], runs[3]}, o, w.history);
  ASSERT_EQ(c.next.size(), 1U);
  EXPECT_NE(c.next.front().path.find("r1.h5"), std::string::npos);
  ASSERT_EQ(c.next_set_aside.size(), 1U);
  EXPECT_NE(c.next_set_aside.front().path.find("r3.h5"), std::string::npos);
  EXPECT_EQ(c.base.size(), 3U);
  EXPECT_FALSE(c.state_differs);
  EXPECT_FALSE(c.regressed()) << c.headline();
  EXPECT_NE(c.headline().find("1 new run(s) set aside: no baseline shares their machine state"), std::string::npos) << c.headline();
  std::ostringstream text, json;
  make_compare_writer(OutputFormat::text)->write(c, text);
  make_compare_writer(OutputFormat::json)->write(c, json);
  EXPECT_NE(text.str().find("set aside new " + c.next_set_aside.front().path), std::string::npos) << text.str();
  EXPECT_NE(json.str().find("\"new_set_aside\": [\n    {"), std::string::npos) << json.str();
}

TEST(CompareSetInterleaved, RunsNotLaunchedAlternatelyAreRefused) {
  const auto beside_error = [](const std::vector<std::string>& base, const std::vector<std::string>& next) {
    return message([&] { launched_beside(base, next); });
  };
  // Every new run after every baseline: nothing was interleaved.
  const auto after = beside_error({"2026-12-04T10:00:00Z", "2026-12-04T10:00:10Z"}, {"2026-12-04T10:00:20Z", "2026-12-04T10:00:30Z"});
  EXPECT_NE(after.find("no new run was launched between two baselines"), std::string::npos) << after;
  EXPECT_NE(after.find("leave out --interleaved"), std::string::npos) << after;
  const auto missing = beside_error({"2026-12-04T10:00:00Z", ""}, {"2026-12-04T10:00:05Z"});
  EXPECT_NE(missing.find("run 2 of the baselines has none"), std::string::npos) << missing;
}

TEST(CompareSetInterleaved, ANeighbourInAnotherStateGivesWayToTheNearestBaselineOfTheNewRunsState) {
  using Pairs = std::vector<std::pair<std::size_t, std::size_t>>;
  // B0 N0 B1 N1 B2, B1 in the slow state and the rest fast.
  const std::vector<std::string> base_at{"2026-12-05T02:00:00Z", "2026-12-05T02:02:00Z", "2026-12-05T02:04:00Z"};
  const std::vector<std::string> new_at{"2026-12-05T02:01:00Z", "2026-12-05T02:03:00Z"};
  const std::vector<double> base_ns{60, 330, 60};
  const std::vector<double> new_ns{60, 60};
  const auto same_state = [&](std::size_t j, std::size_t i) { return !machine_states_differ(base_ns[i], new_ns[j]); };
  EXPECT_EQ(launched_beside(base_at, new_at), (Pairs{{0, 0}, {0, 1}, {1, 1}, {1, 2}}));
  // Past B1 on each side: four pairs still, none of them across states.
  EXPECT_EQ(launched_beside(base_at, new_at, same_state), (Pairs{{0, 0}, {0, 2}, {1, 0}, {1, 2}}));
  // No baseline that matches N1 after it: that side has no pair, and nothing is refused.
  const auto only_b1 = [](std::size_t j, std::size_t i) { return j == 0 || i == 1; };
  EXPECT_EQ(launched_beside(base_at, new_at, only_b1), (Pairs{{0, 0}, {0, 1}, {1, 1}}));
  EXPECT_TRUE(launched_beside(base_at, new_at, [](std::size_t, std::size_t) { return false; }).empty());

  // End to end: a uniform +30% in both new runs is judged on four pairs, not two, and found.
  InterleavedWindow w;
  const auto runs = w.launched({in_state(make_set_run(0), 60), in_state(make_set_run(3, 1.3), 60), in_state(make_set_run(1, 1.4), 330),
                                in_state(make_set_run(4, 1.3), 60), in_state(make_set_run(2), 60)},
                               "r");
  JudgeOptions o;
  o.interleaved = true;
  const auto c = compare_sets({runs[0], runs[2], runs[4]}, {runs[1], runs[3]}, o, w.history);
  EXPECT_EQ(c.pairs, 4U);
  ASSERT_EQ(c.set_aside.size(), 1U);
  EXPECT_NE(c.set_aside.front().path.find("r2.h5"), std::string::npos);
  EXPECT_TRUE(c.next_set_aside.empty());
  EXPECT_TRUE(c.regressed()) << c.headline();
}

TEST(CompareSetInterleaved, TheOptionReachesTheStatisticsAndTheOutput) {
  std::vector<results::ResultsFile> base, next;
  testing::ScratchDir dir;
  const auto write = [&](int phase, double scale, const std::string& at, const std::string& name) {
    return results::ResultsFile::open(started(make_set_run(phase, scale), at).write(dir / name));
  };
  base.push_back(write(0, 1.0, "2026-12-04T10:00:00Z", "b0.h5"));
  base.push_back(write(1, 1.0, "2026-12-04T10:00:10Z", "b1.h5"));
  base.push_back(write(2, 1.0, "2026-12-04T10:00:20Z", "b2.h5"));
  next.push_back(write(3, 1.3, "2026-12-04T10:00:05Z", "n0.h5"));
  next.push_back(write(4, 1.3, "2026-12-04T10:00:15Z", "n1.h5"));
  JudgeOptions o;
  o.interleaved = true;
  const auto c = compare_sets(base, next, o);
  EXPECT_TRUE(c.regressed());
  std::ostringstream text, json;
  make_compare_writer(OutputFormat::text)->write(c, text);
  make_compare_writer(OutputFormat::json)->write(c, json);
  EXPECT_NE(text.str().find("its 4 differences between each new run and the baselines launched just before and after it in the same "
                            "machine state (the nearest of that state on each side; interleaved)"),
            std::string::npos)
      << text.str();
  EXPECT_NE(json.str().find("\"pairs\": 4,"), std::string::npos) << json.str();
  EXPECT_EQ(nlohmann::json::parse(json.str())["judge"]["pairing"], "interleaved");
  // The same files as a plain set: not interleaved in the output, and no pairs to count.
  const auto plain = compare_sets(base, next, {});
  std::ostringstream plain_json;
  make_compare_writer(OutputFormat::json)->write(plain, plain_json);
  EXPECT_EQ(nlohmann::json::parse(plain_json.str())["judge"]["pairing"], "none");
  EXPECT_EQ(plain_json.str().find("\"pairs\""), std::string::npos) << plain_json.str();
}

}  // namespace
}  // namespace meshbench::analysis
