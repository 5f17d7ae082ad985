// meshbench history on written files: ordering by start time, configurations kept apart, the run
// and the provenance change a step is attributed to, families, writers, bad input; --plot's
// choice of series and file names and its refusals (the drawing: integration.history.planted_step).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "analysis/history/history.hpp"
#include "analysis/history/history_plots.hpp"
#include "analysis/history/history_writers.hpp"
#include "common/error.hpp"
#include "report_fixture.hpp"
#include "tests/unit/input_error_text.hpp"

namespace meshbench::analysis {
namespace {

// Run `index` of a series: 2 mappings × (tp all_reduce, ep all_to_all) × 3 sizes, ±1.5% wobble
// per point and run; from run `step_from` on, ep all_to_all at 64 KiB is `step` slower and
// libfabric is 1.18 instead of 1.17.
testing::FixtureFile make_history_run(int index, int step_from = 1000, double step = 1.0, bool whole_run = false) {
  testing::FixtureFile f;
  f.add_mapping("ep-inner", "tp-cp-ep-dp-pp");
  f.add_mapping("dp-inner", "tp-cp-dp-ep-pp");
  char started[32];
  std::snprintf(started, sizeof started, "2026-11-%02dT10:00:00Z", index + 1);
  f.run().started_at = started;
  f.set_version("libfabric", index >= step_from ? "1.18.0" : "1.17.0");
  int k = 0;
  for (const std::string m : {"ep-inner", "dp-inner"}) {
    for (std::uint64_t b : {1024ULL, 65536ULL, 1048576ULL}) {
      for (const auto& [dim, op, base] : {std::tuple{"tp", "all_reduce", 20.0}, std::tuple{"ep", "all_to_all", 50.0}}) {
        const double wobble = 1.0 + 0.015 * std::sin(1.7 * (k++) + 2.3 * index);
        const bool stepped = index >= step_from && (whole_run || (std::string(op) == "all_to_all" && b == 65536));
        f.add_point(m, dim, op, b, base * (1 + static_cast<double>(b) / 65536.0) * wobble * (stepped ? step : 1.0));
      }
    }
  }
  return f;
}

// Written in reverse order so that only the start times put them right.
std::vector<results::ResultsFile> write_runs(const testing::ScratchDir& dir, int n, int step_from, double step, bool whole_run = false) {
  std::vector<results::ResultsFile> out;
  for (int i = n - 1; i >= 0; --i) {
    const auto run = make_history_run(i, step_from, step, whole_run);
    out.push_back(results::ResultsFile::open(run.write(dir / ("run" + std::to_string(i) + ".h5"))));
  }
  return out;
}

const Series* find_series(const ConfigurationHistory& c, UnitKind kind, const std::string& dim, const std::string& op,
                          std::uint64_t bytes) {
  for (const auto& s : c.series) {
    if (s.family.kind == kind && s.family.dim == dim && s.family.op == op && s.family.bytes == bytes) return &s;
  }
  return nullptr;
}

TEST(History, AStepFromTheEighthRunIsFoundThereWithTheVersionChangeBesideIt) {
  testing::ScratchDir dir;
  const auto runs = write_runs(dir, 12, 7, 1.10);
  const History h = build_history(runs, {});
  ASSERT_EQ(h.configurations.size(), 1U);
  const auto& c = h.configurations[0];
  ASSERT_EQ(c.runs.size(), 12U);
  EXPECT_EQ(c.runs.front().started_at, "2026-11-01T10:00:00Z");
  const Series* family = find_series(c, UnitKind::op_size, "", "all_to_all", 65536);
  ASSERT_NE(family, nullptr);
  EXPECT_EQ(family->family.points, 2);
  ASSERT_EQ(family->changes.size(), 1U);
  EXPECT_EQ(family->changes[0].point.index, 7U);
  EXPECT_NEAR(family->changes[0].ratio, 1.10, 0.02);
  EXPECT_NE(family->changes[0].run_after.find("run7.h5"), std::string::npos);
  bool libfabric = false;
  for (const auto& ch : family->changes[0].changes) libfabric |= ch.name == "libfabric" && ch.before == "1.17.0" && ch.after == "1.18.0";
  EXPECT_TRUE(libfabric);
  // The two stepped points changed too; nothing of tp did.
  for (const auto& s : c.series) {
    if (s.family.kind == UnitKind::point && s.family.op == "all_to_all" && s.family.bytes == 65536) {
      EXPECT_EQ(s.changes.size(), 1U) << s.name();
    }
    if (s.family.dim == "tp" || (s.family.op == "all_reduce" && s.family.kind == UnitKind::op_size)) {
      EXPECT_TRUE(s.changes.empty()) << s.name();
    }
  }
  EXPECT_GT(h.changed_series(), 0);
}

TEST(History, HonestRunsHaveNoChange) {
  testing::ScratchDir dir;
  const History h = build_history(write_runs(dir, 12, 1000, 1.0), {});
  EXPECT_EQ(h.changed_series(), 0);
  // 12 points; op-size 6, collective 2, dimension 2, whole run 1 families.
  EXPECT_EQ(h.searched_series(), 12 + 6 + 2 + 2 + 1);
  // 12 runs are enough for a step of 3 runs at either end to reach p <= 0.01: "no change" means it.
  EXPECT_EQ(h.gate_verdict(), GateVerdict::clean);
}

TEST(History, TheSmallestReachablePValueIsTwoOverTheArrangementsOfTheStep) {
  EXPECT_NEAR(smallest_reachable_p(7, 3, 999), 2.0 / 35, 1e-12);
  EXPECT_NEAR(smallest_reachable_p(12, 3, 999), 2.0 / 220, 1e-12);
  EXPECT_EQ(smallest_reachable_p(5, 3, 999), 1.0);                 // never searched
  EXPECT_NEAR(smallest_reachable_p(40, 3, 99), 1.0 / 100, 1e-12);  // the permutations' floor
  EXPECT_EQ(runs_needed(3, 0.01, 999), 12U);                       // 2/C(11,3) = 0.012, 2/C(12,3) = 0.009
  EXPECT_EQ(runs_needed(3, 0.05, 999), 8U);                        // 2/C(7,3) = 0.057, 2/C(8,3) = 0.036
  EXPECT_EQ(runs_needed(3, 0.001, 99), 0U);                        // 99 shuffles never reach 0.001
}

TEST(History, SevenRunsWhoseLastThreeAreTwiceAsSlowAreInconclusiveNotClean) {
  // Every point 1.9x slower from run 5 on (shared memory → TCP): with 7 runs no arrangement test
  // can reach p <= 0.01, so the history must not say "no change" and exit 0.
  testing::ScratchDir dir;
  const History h = build_history(write_runs(dir, 7, 4, 1.9, true), {});
  ASSERT_EQ(h.configurations.size(), 1U);
  EXPECT_NEAR(h.configurations[0].smallest_reachable_p, 2.0 / 35, 1e-12);
  EXPECT_EQ(h.slower_series(), 0);
  EXPECT_EQ(h.gate_verdict(), GateVerdict::inconclusive);
  EXPECT_EQ(exit_status(h.gate_verdict()), kExitInconclusive);
  std::ostringstream text;
  write_history(h, OutputFormat::text, text);
  EXPECT_NE(text.str().find("the smallest reachable p-value is 0.0571"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("12 runs are needed"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("verdict: INCONCLUSIVE (exit status 3)"), std::string::npos) << text.str();
  const auto j = history_to_json(h);
  EXPECT_EQ(j["verdict"], "inconclusive");
  EXPECT_EQ(j["exit_status"], 3);
  EXPECT_EQ(j["runs_needed"], 12);
  // The same step with 12 runs (the last three slower) is found, and is a regression.
  testing::ScratchDir more;
  const History found = build_history(write_runs(more, 12, 9, 1.9, true), {});
  EXPECT_GT(found.slower_series(), 0);
  EXPECT_EQ(found.gate_verdict(), GateVerdict::regression);
}

TEST(History, RunsOfAnotherLayoutAreGroupedApart) {
  testing::ScratchDir dir;
  auto runs = write_runs(dir, 6, 1000, 1.0);
  auto other = make_history_run(0);
  other.layout().tp = 4;
  runs.push_back(results::ResultsFile::open(other.write(dir / "other.h5")));
  const History h = build_history(runs, {});
  ASSERT_EQ(h.configurations.size(), 2U);
  EXPECT_EQ(h.configurations[0].runs.size(), 6U);
  EXPECT_EQ(h.configurations[1].runs.size(), 1U);
  std::ostringstream text;
  write_history(h, OutputFormat::text, text);
  EXPECT_NE(text.str().find("too few runs to find a change"), std::string::npos) << text.str();
}

TEST(History, JsonAndMarkdownSayTheSame) {
  testing::ScratchDir dir;
  const History h = build_history(write_runs(dir, 10, 5, 1.25), {});
  const auto j = history_to_json(h);
  EXPECT_EQ(j["schema"], "meshbench.history");
  EXPECT_EQ(j["schema_version"], kHistoryJsonVersion);
  EXPECT_FALSE(j.contains("version"));
  EXPECT_EQ(j["changed_series"].get<int>(), h.changed_series());
  std::ostringstream md;
  write_history(h, OutputFormat::markdown, md);
  EXPECT_NE(md.str().find("| all_to_all at 64 KiB"), std::string::npos) << md.str();
  EXPECT_NE(md.str().find("libfabric 1.17.0 → 1.18.0"), std::string::npos) << md.str();
}

TEST(History, BadOptionsAreOneLineErrors) {
  testing::ScratchDir dir;
  const auto runs = write_runs(dir, 6, 1000, 1.0);
  HistoryOptions o;
  o.change_points.permutations = 10;  // p can never reach 0.01
  EXPECT_THROW(build_history(runs, o), InputError);
  EXPECT_THROW(build_history({}, {}), InputError);
}

// Points the plotting at an interpreter that does not exist, so that a call that got as far as
// drawing fails (and must then leave nothing behind); restored at the end of the test.
class NoPython {
 public:
  NoPython() {
    const char* old = std::getenv("MESHBENCH_PYTHON");
    if (old != nullptr) old_ = old;
    ::setenv("MESHBENCH_PYTHON", "/nonexistent/python3", 1);
  }
  ~NoPython() {
    if (old_.empty()) {
      ::unsetenv("MESHBENCH_PYTHON");
    } else {
      ::setenv("MESHBENCH_PYTHON", old_.c_str(), 1);
    }
  }
  NoPython(const NoPython&) = delete;
  NoPython& operator=(const NoPython&) = delete;

 private:
  std::string old_;
};

TEST(HistoryPlots, OnePictureForEachChangedFamilyAndNoneForPoints) {
  testing::ScratchDir dir;
  const History h = build_history(write_runs(dir, 12, 7, 1.10), {});
  ASSERT_EQ(h.configurations.size(), 1U);
  const auto& series = h.configurations[0].series;
  std::set<std::size_t> changed_families;
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (series[i].family.kind != UnitKind::point && !series[i].changes.empty()) changed_families.insert(i);
  }
  ASSERT_FALSE(changed_families.empty());
  const auto plots = history_plots(h);
  std::set<std::size_t> plotted;
  std::set<std::string> files;
  const std::regex safe("c1-[a-z0-9_.-]+\\.png");
  for (const auto& p : plots) {
    EXPECT_EQ(p.configuration, 0U);
    plotted.insert(p.series);
    files.insert(p.file);
    EXPECT_TRUE(std::regex_match(p.file, safe)) << p.file;
  }
  EXPECT_EQ(plotted, changed_families);
  EXPECT_EQ(files.size(), plots.size());
  const auto& f = series[*changed_families.begin()].family;
  const std::string planted = "c1-all_to_all-at-64-kib-" + f.timing + "-" + f.concurrency + ".png";
  EXPECT_TRUE(files.contains(planted)) << planted;
  EXPECT_FALSE(files.contains("c1-all_reduce-at-64-kib-" + f.timing + "-" + f.concurrency + ".png"));
}

TEST(HistoryPlots, NamesThatWouldBeTheSameGetANumber) {
  History h;
  h.configurations.resize(2);
  Series s;
  s.family.kind = UnitKind::op_size;
  s.family.op = "all_reduce";
  s.family.bytes = 65536;
  s.family.timing = "per_iteration";
  s.family.concurrency = "isolated";
  s.changes.emplace_back();
  h.configurations[0].series = {s, s};
  h.configurations[1].series = {s};
  const auto plots = history_plots(h);
  ASSERT_EQ(plots.size(), 3U);
  EXPECT_EQ(plots[0].file, "c1-all_reduce-at-64-kib-per_iteration-isolated.png");
  EXPECT_EQ(plots[1].file, "c1-all_reduce-at-64-kib-per_iteration-isolated-2.png");
  EXPECT_EQ(plots[2].file, "c2-all_reduce-at-64-kib-per_iteration-isolated.png");
}

TEST(HistoryPlots, NoChangeWritesNothingAndCreatesNoFolder) {
  testing::ScratchDir dir;
  const History h = build_history(write_runs(dir, 12, 1000, 1.0), {});
  ASSERT_EQ(h.changed_series(), 0);
  const NoPython no_python;  // nothing may even try to draw
  EXPECT_TRUE(write_history_plots(h, (dir / "plots").string()).empty());
  EXPECT_FALSE(std::filesystem::exists(dir / "plots"));
}

TEST(HistoryPlots, AFolderThatCannotBeWrittenIsOneLineAndNothingIsLeft) {
  testing::ScratchDir dir;
  const History h = build_history(write_runs(dir, 12, 7, 1.10), {});
  ASSERT_GT(h.changed_series(), 0);
  std::ofstream(dir / "file") << "not a folder\n";
  const std::string under_a_file = (dir / "file" / "plots").string();
  const std::string e = test_support::error_of([&] { write_history_plots(h, under_a_file); });
  EXPECT_NE(e.find("cannot create the --plot folder " + under_a_file), std::string::npos) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;

  // A drawing that fails removes the folders it created for its pictures.
  const NoPython no_python;
  const std::string fresh = (dir / "new" / "plots").string();
  const std::string f = test_support::error_of([&] { write_history_plots(h, fresh); });
  EXPECT_NE(f.find("--plot needs /nonexistent/python3"), std::string::npos) << f;
  EXPECT_FALSE(std::filesystem::exists(dir / "new"));
}

}  // namespace
}  // namespace meshbench::analysis
