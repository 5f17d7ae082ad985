// The accuracy section: its statistics on numbers worked out by hand, and its wiring on a file
// whose medians are known multiples of the model's own predictions.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/report/file_model.hpp"
#include "analysis/report/prediction_accuracy.hpp"
#include "analysis/report/report.hpp"
#include "analysis/report/report_writers.hpp"
#include "mapping/cost_params.hpp"
#include "report_fixture.hpp"
#include "tests/unit/two_cpu_node.hpp"

namespace meshbench::analysis {
namespace {

TEST(AccuracyStats, MedianAndNearestRankP90) {
  const auto odd = summarize_errors({0.5, 0.1, 0.3});
  EXPECT_EQ(odd.points, 3);
  EXPECT_DOUBLE_EQ(odd.median_rel_error, 0.3);
  EXPECT_DOUBLE_EQ(odd.p90_rel_error, 0.5);  // ⌈2.7⌉ = 3rd smallest
  const auto even = summarize_errors({0.4, 0.1, 0.3, 0.2});
  EXPECT_DOUBLE_EQ(even.median_rel_error, 0.25);
  EXPECT_DOUBLE_EQ(even.p90_rel_error, 0.4);  // ⌈3.6⌉ = 4th
  std::vector<double> ten;
  for (int i = 10; i >= 1; --i) ten.push_back(i / 10.0);
  EXPECT_DOUBLE_EQ(summarize_errors(ten).p90_rel_error, 0.9);  // ⌈9⌉ = 9th, not the largest
  EXPECT_DOUBLE_EQ(summarize_errors(ten).median_rel_error, 0.55);
  const auto none = summarize_errors({});
  EXPECT_EQ(none.points, 0);
  EXPECT_TRUE(std::isnan(none.median_rel_error));
}

TEST(AccuracyStats, SpearmanByHand) {
  // Ranks 1 2 3 4 against 1 3 2 4: Σd² = 2, rho = 1 − 6·2 / (4·15) = 0.8.
  EXPECT_NEAR(spearman({1, 2, 3, 4}, {10, 30, 20, 40}), 0.8, 1e-12);
  EXPECT_NEAR(spearman({1, 2, 3}, {30, 20, 10}), -1.0, 1e-12);
  // Ties share the mean place: x ranks 1.5 1.5 3, y 1 2 3; Pearson of those is √3/2.
  EXPECT_NEAR(spearman({5, 5, 7}, {1, 2, 3}), std::sqrt(3.0) / 2.0, 1e-12);
  EXPECT_TRUE(std::isnan(spearman({1, 1, 1}, {1, 2, 3})));
  EXPECT_TRUE(std::isnan(spearman({1}, {1})));
}

TEST(AccuracyStats, RegretOfThePredictedBest) {
  // The model picks the second (3); it measured 120 against the best 90: 120/90 − 1.
  EXPECT_NEAR(regret({5, 3, 4}, {100, 120, 90}), 120.0 / 90.0 - 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(regret({1, 2, 3}, {10, 20, 30}), 0.0);
  // Two tie for the best prediction: the worse of their measurements counts.
  EXPECT_NEAR(regret({3, 3, 4}, {100, 120, 90}), 120.0 / 90.0 - 1.0, 1e-12);
  // The mapping named as the predicted best is the one regret charges: of a tie, the slowest.
  int tied = -1;
  EXPECT_EQ(predicted_best({3, 3, 4}, {100, 120, 90}, tied), 1U);
  EXPECT_EQ(tied, 1);
  EXPECT_EQ(predicted_best({5, 3, 4}, {100, 120, 90}, tied), 1U);
  EXPECT_EQ(tied, 0);
  EXPECT_EQ(predicted_best({2, 2, 2}, {100, 90, 95}, tied), 0U);
  EXPECT_EQ(tied, 2);
  EXPECT_TRUE(std::isnan(regret({}, {})));
}

// Two mappings whose TP pairs sit inside a node ("block") and across the nodes ("spread"), so
// the model tells them apart; every median is a known multiple of the uncalibrated model's
// prediction for its row: "block" measured 1.25× (relative error 0.2), "spread" 2× (0.5).
class AccuracyWiringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    f_.add_mapping("block", "tp-cp-ep-dp-pp");
    f_.add_mapping("spread", "tp-cp-ep-dp-pp", {0, 2, 1, 3});
    f_.keep_plan(std::nullopt);
    const auto topo = topology::ClusterTopology::replicate(test_support::two_cpu_node("node"), 2);
    // The model the report's "uncalibrated" predictor is: the plan's defaults.
    const mapping::CostModel model(topo, mapping::default_cost_params(topo));
    const auto probe_path = f_.write(dir_ / "probe.h5");
    const auto probe = results::ResultsFile::open(probe_path);
    const FileScores scores(model, probe);
    for (const char* m : {"block", "spread"}) {
      const double factor = std::string(m) == "block" ? 1.25 : 2.0;
      double predicted_sum = 0, measured_sum = 0;
      for (const auto op : {mapping::Op::all_reduce, mapping::Op::all_gather}) {
        for (std::uint64_t b : {1024ULL, 65536ULL, 1048576ULL}) {
          const double p = model.op_time_us(scores.find(m)->of(mapping::Dim::tp), op, b);
          auto& point = f_.add_point(m, "tp", std::string(mapping::to_string(op)), b, p * factor);
          // The library's model, where a test asks for one: all-reduces only, 0.8× the median.
          if (library_model_ && op == mapping::Op::all_reduce) {
            point.modelled = results::ModelledTime{point.row.point, "nccl", 0.8 * p * factor};
          }
          predicted_sum += p;
          measured_sum += p * factor;
        }
      }
      predicted_[m] = predicted_sum;
      measured_[m] = measured_sum;
    }
    file_ = std::make_unique<results::ResultsFile>(results::ResultsFile::open(f_.write(dir_ / "run.h5")));
  }

  bool library_model_ = false;
  testing::ScratchDir dir_;
  testing::FixtureFile f_;
  std::unique_ptr<results::ResultsFile> file_;
  std::map<std::string, double> predicted_, measured_;
};

TEST_F(AccuracyWiringTest, PointMappingAndOrderFiguresFollowTheKnownFactors) {
  const Report r = build_report(*file_, std::nullopt, "");
  ASSERT_TRUE(r.accuracy.has_value());
  ASSERT_EQ(r.accuracy->predictors.size(), 1u);  // no calibration anywhere
  const auto& a = r.accuracy->predictors.front();
  EXPECT_EQ(a.name, "uncalibrated");
  ASSERT_EQ(a.points.size(), 12u);
  // Six points at 0.2, six at 0.5: median 0.35, p90 the 11th smallest = 0.5.
  EXPECT_NEAR(a.all.median_rel_error, 0.35, 1e-9);
  EXPECT_NEAR(a.all.p90_rel_error, 0.5, 1e-9);
  // ≥ 64 KiB: four of each.
  EXPECT_EQ(a.large.points, 8);
  EXPECT_NEAR(a.large.median_rel_error, 0.35, 1e-9);
  EXPECT_EQ(a.concurrent_large.points, 8);

  // Per mapping: Σ predicted against Σ measured over the same six points.
  ASSERT_EQ(a.order.mappings, 2);
  for (const auto& t : a.totals) {
    if (t.dim != "step") continue;
    EXPECT_NEAR(t.predicted_us, predicted_[t.mapping], 1e-6 * predicted_[t.mapping]);
    EXPECT_NEAR(t.measured_us, measured_[t.mapping], 1e-6 * measured_[t.mapping]);
  }
  EXPECT_NEAR(a.order.error.median_rel_error, (0.2 + 0.5) / 2.0, 1e-9);
  // Order and regret by hand from the two totals.
  const bool block_predicted_first = predicted_["block"] < predicted_["spread"];
  const bool block_measured_first = measured_["block"] < measured_["spread"];
  EXPECT_DOUBLE_EQ(a.order.spearman, block_predicted_first == block_measured_first ? 1.0 : -1.0);
  const double picked = block_predicted_first ? measured_["block"] : measured_["spread"];
  EXPECT_NEAR(a.order.regret, picked / std::min(measured_["block"], measured_["spread"]) - 1.0, 1e-9);
  EXPECT_EQ(a.order.predicted_best, block_predicted_first ? "block" : "spread");

  EXPECT_NE(predicted_["block"], predicted_["spread"]);

  // Per dimension: the one measured, with every point.
  ASSERT_EQ(a.dims.size(), 1u);
  EXPECT_EQ(a.dims[0].dim, "tp");
  EXPECT_EQ(a.dims[0].all.points, 12);
  EXPECT_NEAR(a.dims[0].all.median_rel_error, 0.35, 1e-9);
  EXPECT_EQ(a.dims[0].order.mappings, 2);
  EXPECT_DOUBLE_EQ(a.dims[0].order.spearman, a.order.spearman);
}

TEST_F(AccuracyWiringTest, JsonAndCsvCarryBothSidesOfEveryPoint) {
  const Report r = build_report(*file_, std::nullopt, "");
  const auto j = report_to_json(r);
  ASSERT_TRUE(j.contains("prediction_accuracy"));
  const auto& p = j["prediction_accuracy"]["predictors"][0];
  EXPECT_EQ(p["name"], "uncalibrated");
  EXPECT_EQ(p["point_predictions"].size(), 12u);
  EXPECT_NEAR(p["points"]["all"]["median_rel_error"].get<double>(), 0.35, 1e-9);
  EXPECT_EQ(p["order"]["mappings"], 2);
  std::ostringstream csv;
  make_report_writer(OutputFormat::csv)->write(r, csv);
  EXPECT_NE(csv.str().find("accuracy,,,,,per_iteration,,,median_rel_error_all,0.35,uncalibrated"), std::string::npos) << csv.str();
  std::ostringstream text;
  make_report_writer(OutputFormat::text)->write(r, text);
  EXPECT_NE(text.str().find("prediction accuracy"), std::string::npos);
  EXPECT_NE(text.str().find("error per point, all sizes"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("35.0% / 50.0% (12)"), std::string::npos) << text.str();
}

// A second predictor with every link ten times slower predicts every point ten times higher.
TEST_F(AccuracyWiringTest, ASecondPredictorIsJudgedOnTheSamePoints) {
  auto predictors = report_predictors(*file_, "");
  ASSERT_EQ(predictors.size(), 1u);
  Predictor slow = predictors.front();
  slow.name = "cost-model";
  for (auto& l : slow.params.links) {
    l.alpha_us *= 10;
    l.bandwidth_gbps /= 10;
  }
  predictors.push_back(slow);
  const Report r = build_report(*file_, std::nullopt, "", predictors);
  ASSERT_EQ(r.accuracy->predictors.size(), 2u);
  const auto& a = r.accuracy->predictors[0];
  const auto& b = r.accuracy->predictors[1];
  ASSERT_EQ(a.points.size(), b.points.size());
  for (std::size_t i = 0; i < a.points.size(); ++i) {
    EXPECT_EQ(a.points[i].measured_us, b.points[i].measured_us);
    EXPECT_GT(b.points[i].predicted_us, a.points[i].predicted_us);
  }
}

// Where the file keeps a library's own model of its points (NCCL's ncclGroupSimulateEnd), that
// model is a third predictor, judged on the points it priced only.
class LibraryModelTest : public AccuracyWiringTest {
 protected:
  void SetUp() override {
    library_model_ = true;
    AccuracyWiringTest::SetUp();
  }
};

TEST_F(LibraryModelTest, ALibrarysModelIsJudgedOnThePointsItPriced) {
  const auto predictors = report_predictors(*file_, "");
  ASSERT_EQ(predictors.size(), 2u);
  EXPECT_EQ(predictors[1].name, "nccl");
  EXPECT_TRUE(predictors[1].from_library);
  const Report r = build_report(*file_, std::nullopt, "");
  ASSERT_EQ(r.accuracy->predictors.size(), 2u);
  const auto& nccl = r.accuracy->predictors[1];
  ASSERT_EQ(nccl.points.size(), 6u);  // 2 mappings x 3 sizes of all_reduce
  for (const auto& p : nccl.points) {
    EXPECT_EQ(p.point.op, "all_reduce");
    EXPECT_NEAR(p.predicted_us, 0.8 * p.measured_us, 1e-9 * p.measured_us);
  }
  EXPECT_NEAR(nccl.all.median_rel_error, 0.2, 1e-9);
  // Both mappings 0.8x: the order is the measured one.
  EXPECT_DOUBLE_EQ(nccl.order.spearman, 1.0);
  EXPECT_DOUBLE_EQ(nccl.order.regret, 0.0);
  // The cost model's figures are those of the file without a library model.
  EXPECT_EQ(r.accuracy->predictors[0].points.size(), 12u);
}

}  // namespace
}  // namespace meshbench::analysis

namespace meshbench::analysis {
namespace {

// With a workload, a mapping's total is the model's time per step against the ranking's
// measured step estimate: the same workload on both sides.
TEST(AccuracyWorkload, TotalsAreStepTimesOnBothSides) {
  testing::ScratchDir dir;
  testing::FixtureFile f;
  f.add_mapping("ep-inner", "tp-cp-ep-dp-pp");
  f.add_mapping("dp-inner", "tp-cp-dp-ep-pp");
  const auto workload = mapping::workload_from_json(
      nlohmann::json::parse(R"({"name": "tiny", "layers": 2, "hidden": 1024, "ffn_hidden": 1024, "kv_hidden": 256,
                                "seq_len": 1024, "micro_batch": 1, "micro_batches": 2, "experts": 4, "top_k": 2, "vocab": 1000})"),
      "test");
  // Curves t = bytes / rate for every (dim, op) of the step, each mapping at its own rate.
  for (const auto& [m, rate] : {std::pair{"ep-inner", 1000.0}, std::pair{"dp-inner", 300.0}}) {
    for (const char* dim : {"tp", "dp", "ep"}) {
      for (const char* op : {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"}) {
        for (std::uint64_t b = 1024; b <= (1ULL << 30U); b *= 4) f.add_point(m, dim, op, b, static_cast<double>(b) / rate);
      }
    }
  }
  f.keep_plan(workload);
  const auto file = results::ResultsFile::open(f.write(dir / "run.h5"));
  const Report r = build_report(file, workload, "test");
  ASSERT_TRUE(r.accuracy.has_value());
  EXPECT_TRUE(r.accuracy->per_step);
  const auto& a = r.accuracy->predictors.front();
  const auto topo = topology_of(file);
  const mapping::CostModel model(topo, mapping::default_cost_params(topo), workload);
  const FileScores scores(model, file);
  int steps = 0;
  for (const auto& t : a.totals) {
    if (t.dim != "step") continue;
    ++steps;
    EXPECT_NEAR(t.predicted_us, scores.find(t.mapping)->total_us, 1e-9 * t.predicted_us) << t.mapping;
    for (const auto& m : r.ranking.mappings) {
      if (m.name == t.mapping) {
        EXPECT_DOUBLE_EQ(t.measured_us, m.score) << t.mapping;
      }
    }
  }
  EXPECT_EQ(steps, 2);
  EXPECT_EQ(a.order.measured_best, "ep-inner");  // three times the rate on every curve
}

}  // namespace
}  // namespace meshbench::analysis
