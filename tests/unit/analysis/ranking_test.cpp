// Ranking mappings: by a workload's step time read off the measured curves, and without one.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "analysis/report/ranking.hpp"
#include "analysis/report/report.hpp"
#include "common/error.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

constexpr const char* kWorkload =
    R"({"name": "tiny-moe", "layers": 2, "hidden": 1024, "ffn_hidden": 1024, "kv_hidden": 256, "seq_len": 1024,
        "micro_batch": 1, "micro_batches": 2, "experts": 4, "top_k": 2, "vocab": 1000})";

// Power-law curves t = bytes / rate: log-log interpolation and linear extrapolation read them
// exactly, so the expected step time is Σ calls × bytes / rate.
void add_curve(testing::FixtureFile& f, const std::string& mapping, const std::string& dim, const std::string& op, double bytes_per_us) {
  for (std::uint64_t b = 1024; b <= (1ULL << 30U); b *= 4) f.add_point(mapping, dim, op, b, static_cast<double>(b) / bytes_per_us);
}

class RankingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // "ep-inner" (order tp-cp-ep-dp-pp): EDP's groups are DP's, so edp borrows dp's curve.
    // "dp-inner" (order tp-cp-dp-ep-pp): EDP's groups are TP's, so edp borrows tp's all_reduce.
    f_.add_mapping("ep-inner", "tp-cp-ep-dp-pp");
    f_.add_mapping("dp-inner", "tp-cp-dp-ep-pp");
    rate_ = {{"ep-inner", {{"tp", 2000}, {"dp", 500}, {"ep", 1000}}}, {"dp-inner", {{"tp", 200}, {"dp", 500}, {"ep", 800}}}};
    for (const auto& [m, rates] : rate_) {
      for (const char* op : {"all_reduce", "all_gather", "reduce_scatter"}) add_curve(f_, m, "tp", op, rates.at("tp"));
      add_curve(f_, m, "dp", "all_reduce", rates.at("dp"));
      add_curve(f_, m, "ep", "all_to_all", rates.at("ep"));
    }
  }

  results::ResultsFile open() { return results::ResultsFile::open(f_.write(dir_ / "run.h5")); }

  testing::ScratchDir dir_;
  testing::FixtureFile f_;
  std::map<std::string, std::map<std::string, double>> rate_;
};

TEST_F(RankingTest, WorkloadStepTimeIsTheSumOfCallsTimesCurveReads) {
  const auto file = open();
  const CurveSet curves(file);
  const auto workload = mapping::workload_from_json(nlohmann::json::parse(kWorkload), "test");
  const Ranking k = rank_by_workload(file, curves, workload);
  const auto traffic = mapping::step_traffic(workload, layout_of(file));
  ASSERT_EQ(k.basis, Ranking::Basis::workload);
  ASSERT_EQ(k.mappings.size(), 2U);
  EXPECT_EQ(k.dims, (std::vector<std::string>{"tp", "dp", "ep", "edp"}));
  const std::map<std::string, std::map<std::string, std::string>> source = {{"ep-inner", {{"edp", "dp"}}}, {"dp-inner", {{"edp", "tp"}}}};
  for (const auto& m : k.mappings) {
    EXPECT_TRUE(m.complete) << m.name;
    std::map<std::string, double> expected;
    double total = 0;
    for (const auto& t : traffic) {
      const std::string dim(mapping::to_string(t.dim));
      const auto borrowed = source.at(m.name).find(dim);
      const std::string from = borrowed == source.at(m.name).end() ? dim : borrowed->second;
      const double us = t.calls_per_step * static_cast<double>(t.bytes) / rate_.at(m.name).at(from);
      expected[dim] += us;
      total += us;
    }
    EXPECT_NEAR(m.score, total, total * 1e-9) << m.name;
    for (const auto& d : m.dims) EXPECT_NEAR(d.value, expected[d.dim], expected[d.dim] * 1e-9) << m.name << " " << d.dim;
    for (const auto& e : m.ops) {
      if (e.dim == "edp") {
        EXPECT_EQ(e.source_dim, source.at(m.name).at("edp"));
      }
    }
  }
  EXPECT_EQ(k.mappings[0].name, "ep-inner");  // its TP is 10x faster
  EXPECT_EQ(k.mappings[0].rank, 1);
  EXPECT_GT(k.mappings[1].vs_best, 1.0);
  bool noted = false;
  for (const auto& n : k.notes) noted = noted || n.find("edp from dp") != std::string::npos;
  EXPECT_TRUE(noted) << "the borrowed curve is not mentioned";
}

TEST_F(RankingTest, MissingCurveMakesAMappingIncompleteAndRankLast) {
  f_.add_mapping("ep-only", "tp-cp-ep-dp-pp", {0, 2, 1, 3});
  add_curve(f_, "ep-only", "ep", "all_to_all", 1e9);  // fastest EP of all, but nothing else measured
  const auto file = open();
  const CurveSet curves(file);
  const auto workload = mapping::workload_from_json(nlohmann::json::parse(kWorkload), "test");
  const Ranking k = rank_by_workload(file, curves, workload);
  ASSERT_EQ(k.mappings.size(), 3U);
  EXPECT_EQ(k.mappings.back().name, "ep-only");
  EXPECT_FALSE(k.mappings.back().complete);
  bool noted = false;
  for (const auto& n : k.notes) noted = noted || n.find("no measured curve") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(RankingTest, WorkloadBeyondTheMeasuredSizesIsExtrapolatedAndSaidSo) {
  testing::FixtureFile small;
  small.add_mapping("ep-inner", "tp-cp-ep-dp-pp");
  for (const char* op : {"all_gather", "reduce_scatter", "all_reduce"}) small.add_point("ep-inner", "tp", op, 1024, 1.0);
  for (const char* op : {"all_gather", "reduce_scatter", "all_reduce"}) small.add_point("ep-inner", "tp", op, 4096, 2.0);
  const auto file = results::ResultsFile::open(small.write(dir_ / "small.h5"));
  const CurveSet curves(file);
  const auto workload = mapping::workload_from_json(nlohmann::json::parse(kWorkload), "test");
  const Ranking k = rank_by_workload(file, curves, workload);
  const auto& tp_ag = *std::find_if(k.mappings[0].ops.begin(), k.mappings[0].ops.end(), [](const OpEstimate& e) { return e.dim == "tp"; });
  EXPECT_EQ(tp_ag.how, ReadHow::extrapolated);
  EXPECT_NEAR(tp_ag.per_call_us, 2.0 + (static_cast<double>(tp_ag.bytes) - 4096) / 3072.0, 1e-9);
  bool noted = false;
  for (const auto& n : k.notes) noted = noted || n.find("extrapolated linearly") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST_F(RankingTest, TheWorkloadStoredInTheFileIsUsedUnlessOneIsGiven) {
  f_.set_workload_json(kWorkload);
  const auto file = open();
  std::string source;
  const auto stored = choose_workload(file, "", source);
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->name, "tiny-moe");
  EXPECT_EQ(source, "results file");
  const Report r = build_report(file, stored, source);
  EXPECT_EQ(r.ranking.basis, Ranking::Basis::workload);
  EXPECT_EQ(r.ranking.workload_source, "results file");
  ASSERT_TRUE(r.best.has_value());
  EXPECT_EQ(r.best->mapping, "ep-inner");
  EXPECT_THROW(choose_workload(file, (dir_ / "absent.json").string(), source), InputError);
}

TEST_F(RankingTest, PredictionsCompareAsNumbersOnlyForThePlansOwnWorkload) {
  const auto workload = mapping::workload_from_json(nlohmann::json::parse(kWorkload), "test");
  f_.set_predicted("ep-inner", {{"tp", 100.0}, {"dp", 100.0}, {"step", 1000.0}});
  f_.set_predicted("dp-inner", {{"tp", 900.0}, {"dp", 100.0}, {"step", 3000.0}});
  f_.keep_plan(workload);
  const auto file = open();
  const Report same = build_report(file, workload, "test");
  ASSERT_TRUE(same.predictions.has_value());
  EXPECT_TRUE(same.predictions->like_for_like);
  EXPECT_EQ(same.best->plan_source, "the plan kept in the results file");
  const auto tp = std::find_if(same.predictions->rows.begin(), same.predictions->rows.end(),
                               [](const PredictionRow& r) { return r.mapping == "dp-inner" && r.dim == "tp"; });
  ASSERT_NE(tp, same.predictions->rows.end());
  EXPECT_DOUBLE_EQ(tp->measured, same.ranking.mappings[1].dims[0].value);  // the measured tp µs per step
  EXPECT_DOUBLE_EQ(same.predictions->rank_correlation, 1.0);               // both say ep-inner is faster
  auto other = workload;
  other.micro_batches = 16;
  const Report different = build_report(file, other, "test");
  EXPECT_FALSE(different.predictions->like_for_like);
  EXPECT_TRUE(std::all_of(different.predictions->rows.begin(), different.predictions->rows.end(),
                          [](const PredictionRow& r) { return r.dim == "step"; }));
  EXPECT_NE(different.predictions->basis.find("another workload"), std::string::npos) << different.predictions->basis;
}

TEST(RankingDefault, GeometricMeanOfRatiosToTheBestMapping) {
  testing::ScratchDir dir;
  testing::FixtureFile f;
  f.add_mapping("a", "tp-cp-ep-dp-pp");
  f.add_mapping("b", "tp-cp-dp-ep-pp");
  for (std::uint64_t bytes : {1024ULL, 4096ULL, 16384ULL}) {
    f.add_point("a", "tp", "all_reduce", bytes, 10.0);
    f.add_point("b", "tp", "all_reduce", bytes, 20.0);  // twice as slow on tp
    f.add_point("a", "ep", "all_to_all", bytes, 30.0);
    f.add_point("b", "ep", "all_to_all", bytes, 30.0);  // equal on ep
  }
  f.add_point("a", "dp", "all_reduce", 1024, 5.0);  // only a measured it: left out
  const auto file = results::ResultsFile::open(f.write(dir / "run.h5"));
  const Ranking k = rank_by_default(file, CurveSet(file));
  ASSERT_EQ(k.mappings.size(), 2U);
  EXPECT_EQ(k.mappings[0].name, "a");
  EXPECT_DOUBLE_EQ(k.mappings[0].score, 1.0);
  EXPECT_NEAR(k.mappings[1].score, std::sqrt(2.0), 1e-12);  // 2 on three points, 1 on three
  EXPECT_EQ(k.mappings[1].points, 6);
  EXPECT_EQ(k.dims, (std::vector<std::string>{"tp", "ep"}));
  EXPECT_NEAR(k.mappings[1].dims[0].value, 2.0, 1e-12);
  EXPECT_NEAR(k.mappings[1].dims[1].value, 1.0, 1e-12);
  bool noted = false;
  for (const auto& n : k.notes) noted = noted || n.find("1 point(s) not measured for every mapping") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace meshbench::analysis
