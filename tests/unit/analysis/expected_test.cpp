// "% of expected": an imported nccl-tests run on 2 x p5 whose every time is the model's own
// prediction but one size planted 3x slower; the report names that size, in every writer, and
// without the hardware says how to add it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/import/import_results.hpp"
#include "analysis/import/nccl_tests_log.hpp"
#include "analysis/report/expected.hpp"
#include "analysis/report/report.hpp"
#include "analysis/report/report_writers.hpp"
#include "mapping/predict.hpp"
#include "report_fixture.hpp"
#include "tests/unit/input_error_text.hpp"
#include "topology/options.hpp"

namespace meshbench::analysis {
namespace {

constexpr std::uint64_t kPlanted = 16ULL << 20;

// One all_reduce point of a log, as the importer reads it.
LoggedPoint all_reduce_point(std::uint64_t bytes, double time_us) {
  LoggedPoint p;
  p.op = "all_reduce";
  p.dtype = "float32";
  p.bytes = bytes;
  p.timing = "batched";
  p.time_us = time_us;
  p.iters = 20;
  return p;
}

// An nccl-tests log of 16 ranks that printed `points`.
ImportedLog nccl_tests_log(std::vector<LoggedPoint> points) {
  ImportedLog log;
  log.tool = "nccl-tests";
  log.path = "synthetic.log";
  log.ranks = 16;
  log.points = std::move(points);
  return log;
}

// The results file import would make of `log`, written as `path`.
std::string write_imported(const ImportedLog& log, const std::filesystem::path& path) {
  const auto imported = imported_results({log}, "test", "2025-01-01T00:00:00Z");
  results::write_results_file(path.string(), imported.header, imported.points, false);
  return path.string();
}

class ExpectedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    hardware_ = ReportHardware{topology::load_offline_topology({"", "p5.48xlarge", 2}, true), "--node-type p5.48xlarge --nodes 2"};
    const auto& topo = hardware_.topology;
    const mapping::CostModel model(topo, mapping::default_cost_params(topo));
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t b = 1ULL << 20; b <= (256ULL << 20); b *= 4) sizes.push_back(b);
    const auto predicted = mapping::predict(model, mapping::node_group(topo, 0, mapping::Op::all_reduce), mapping::Op::all_reduce, sizes);
    std::vector<LoggedPoint> points;
    for (const auto& row : predicted.rows) points.push_back(all_reduce_point(row.bytes, row.time_us * (row.bytes == kPlanted ? 3.0 : 1.0)));
    path_ = write_imported(nccl_tests_log(std::move(points)), dir_.path() / "imported.h5");
  }

  Report report(const ReportHardware* hardware) const {
    const auto file = results::ResultsFile::open(path_);
    return build_report(file, std::nullopt, "", report_predictors(file, "", hardware), hardware);
  }

  static std::string written(const ReportWriter& w, const Report& r) {
    std::ostringstream out;
    w.write(r, out);
    return out.str();
  }

  testing::ScratchDir dir_;
  std::string path_;
  ReportHardware hardware_;
};

TEST_F(ExpectedTest, ThePlantedSlowSizeIsNamed) {
  const Report r = report(&hardware_);
  const auto& e = r.expected;
  ASSERT_TRUE(e.known) << e.note;
  EXPECT_EQ(e.threshold_pct, kExpectBelowPct);
  EXPECT_EQ(e.points.size(), 5U);
  EXPECT_EQ(e.hardware, "--node-type p5.48xlarge --nodes 2");
  EXPECT_FALSE(e.model.empty());
  for (const auto& p : e.points) {
    EXPECT_NEAR(p.expected_pct, p.point.bytes == kPlanted ? 100.0 / 3.0 : 100.0, 1e-6) << p.point.bytes;
    EXPECT_NEAR(p.measured_busbw_gbps / p.predicted_busbw_gbps * 100.0, p.expected_pct, 1e-6);
    EXPECT_FALSE(p.algorithm.empty());
  }
  ASSERT_EQ(e.below.size(), 1U);
  EXPECT_EQ(e.below.front().point.bytes, kPlanted);

  const std::string text = written(TextReportWriter(), r);
  EXPECT_NE(text.find("1 of 5 points below 70% of expected"), std::string::npos) << text;
  EXPECT_NE(text.find("nccl-tests dp all_reduce 16 MiB (concurrent, batched): 33.3% of expected"), std::string::npos) << text;
  EXPECT_NE(text.find("BELOW"), std::string::npos);
  const std::string csv = written(CsvReportWriter(), r);
  EXPECT_NE(csv.find("expected,1,nccl-tests,dp,all_reduce,batched,concurrent,16777216,expected_pct,33.3333"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",predicted_busbw_gbps,"), std::string::npos);
  const auto j = nlohmann::json::parse(written(JsonReportWriter(), r));
  ASSERT_EQ(j["expected"]["below"].size(), 1U);
  EXPECT_EQ(j["expected"]["below"][0]["bytes"], kPlanted);
  for (const char* k : {"busbw_gbps", "predicted_busbw_gbps", "expected_pct", "algorithm", "protocol"})
    EXPECT_TRUE(j["expected"]["points"][0].contains(k)) << k;
  const std::string html = written(HtmlReportWriter(), r);
  EXPECT_NE(html.find("<section id=\"expected\">"), std::string::npos);
  EXPECT_NE(html.find("33.3% of expected"), std::string::npos);
}

TEST_F(ExpectedTest, AFileIsPricedForTheNcclReleaseItRecords) {
  // 2 x p5 at 256 MiB: NVLS tree with NCCL 2.28.9; a log stating 2.16 predates NVLS.
  const auto priced_algorithm = [this](const std::string& release) {
    ImportedLog log = nccl_tests_log({all_reduce_point(256ULL << 20, 1000)});
    if (!release.empty()) log.versions.emplace_back("nccl", release);
    const auto file = results::ResultsFile::open(write_imported(log, dir_.path() / ("release" + release + ".h5")));
    const Report r = build_report(file, std::nullopt, "", report_predictors(file, "", &hardware_), &hardware_);
    return r.expected.points.empty() ? std::string() : r.expected.points.front().algorithm;
  };
  EXPECT_EQ(priced_algorithm(""), "nvls_tree");
  EXPECT_EQ(priced_algorithm("2.28.9"), "nvls_tree");
  const std::string old = priced_algorithm("2.16.5+cuda12.0");
  EXPECT_FALSE(old.empty());
  EXPECT_EQ(old.find("nvls"), std::string::npos) << old;
}

TEST_F(ExpectedTest, AFileIsPricedForTheNcclAlgorithmsItsEnvironmentAllowed) {
  // nccl-tests#309's 2-node H100 log, launched with mpirun -x NCCL_ALGO=Ring
  // (tests/data/import/public): priced on 2 x p5, NCCL's tuning there would pick NVLS tree for
  // the large sizes; with the recorded NCCL_ALGO the expected busbw is the ring's.
  const std::string name = "nccl-tests-issue-309-h100-2node-allreduce-ring.log";
  std::ifstream in(std::string(MESHBENCH_TEST_DATA) + "/import/public/" + name);
  ASSERT_TRUE(in);
  const ImportedLog log = parse_nccl_tests_log(in, name);
  const auto expected_of = [this](const ImportedLog& l, const std::string& file_name) {
    const auto file = results::ResultsFile::open(write_imported(l, dir_.path() / file_name));
    const auto predictors = report_predictors(file, "", &hardware_);
    return std::pair{build_report(file, std::nullopt, "", predictors, &hardware_).expected, predictors.front().source};
  };
  const auto [ring, source] = expected_of(log, "ring.h5");
  EXPECT_NE(source.find(", with NCCL_ALGO=Ring as the file records"), std::string::npos) << source;

  // The ring's busbw: the model with NCCL_ALGO=Ring, nccl-tests' table of it.
  const auto& topo = hardware_.topology;
  mapping::CostParams params = mapping::default_cost_params(topo);
  params.nccl_allowed = *mapping::nccl::parse_allowed("Ring", "");
  const mapping::CostModel ring_model(topo, params);
  std::vector<std::uint64_t> sizes;
  for (const auto& p : ring.points) sizes.push_back(p.point.bytes);
  const auto table = mapping::predict(ring_model, mapping::node_group(topo, 0, mapping::Op::all_reduce), mapping::Op::all_reduce, sizes);
  ASSERT_EQ(ring.points.size(), 14U);  // 1 MiB to 8 GiB, the out-of-place column
  ASSERT_EQ(table.rows.size(), ring.points.size());
  for (std::size_t i = 0; i < ring.points.size(); ++i) {
    EXPECT_EQ(ring.points[i].algorithm, "ring") << ring.points[i].point.bytes;
    EXPECT_NEAR(ring.points[i].predicted_busbw_gbps, table.rows[i].busbw_gbps, 1e-9 * table.rows[i].busbw_gbps)
        << ring.points[i].point.bytes;
  }

  // The same log without its environment: NCCL's own choice, not the ring at every size.
  ImportedLog unset = log;
  unset.environment.clear();
  const auto [unrestricted, unrestricted_source] = expected_of(unset, "free.h5");
  EXPECT_EQ(unrestricted_source.find("NCCL_ALGO"), std::string::npos);
  ASSERT_EQ(unrestricted.points.size(), ring.points.size());
  EXPECT_TRUE(
      std::any_of(unrestricted.points.begin(), unrestricted.points.end(), [](const ExpectedPoint& p) { return p.algorithm != "ring"; }));
  EXPECT_GT(unrestricted.points.back().predicted_busbw_gbps, ring.points.back().predicted_busbw_gbps);
}

TEST_F(ExpectedTest, TheThresholdIsTheFlags) {
  const auto file = results::ResultsFile::open(path_);
  const Report r = build_report(file, std::nullopt, "", report_predictors(file, "", &hardware_), &hardware_, 30.0);
  EXPECT_TRUE(r.expected.below.empty());
  EXPECT_NE(written(TextReportWriter(), r).find("no point below 30% of expected (5 points)"), std::string::npos);
}

TEST_F(ExpectedTest, WithoutTheHardwareTheReportSaysHowToAddIt) {
  const Report r = report(nullptr);
  EXPECT_FALSE(r.expected.known);
  EXPECT_TRUE(r.expected.points.empty());
  const std::string text = written(TextReportWriter(), r);
  EXPECT_NE(text.find("% of expected: not shown, this file keeps no hardware"), std::string::npos) << text;
  EXPECT_NE(text.find("--node-type T --nodes N or --topology FILE"), std::string::npos);
  EXPECT_EQ(text.find("BELOW"), std::string::npos);
  const auto j = nlohmann::json::parse(written(JsonReportWriter(), r));
  EXPECT_FALSE(j["expected"]["known"].get<bool>());
  EXPECT_TRUE(j["expected"]["note"].is_string());
}

TEST_F(ExpectedTest, HardwareOfAnotherSizeIsRefused) {
  const auto file = results::ResultsFile::open(path_);
  const ReportHardware one{topology::load_offline_topology({"", "p5.48xlarge", 1}, true), "--node-type p5.48xlarge --nodes 1"};
  const std::string e = test_support::error_of([&] { report_predictors(file, "", &one); });
  EXPECT_NE(e.find("ran on 16 ranks"), std::string::npos) << e;
  EXPECT_NE(e.find("has 8 slots"), std::string::npos) << e;
}

TEST_F(ExpectedTest, ALogFromOtherHostsThanTheNodesGivenIsRefused) {
  // 16 ranks on 4 hosts of 4 GPUs: 2 × p5 has the slots but not the nodes.
  ImportedLog log = nccl_tests_log({all_reduce_point(1ULL << 20, 100)});
  for (int r = 0; r < 16; ++r) log.hosts.push_back("host" + std::to_string(r / 4));
  const auto file = results::ResultsFile::open(write_imported(log, dir_.path() / "hosts.h5"));
  const std::string e = test_support::error_of([&] { report_predictors(file, "", &hardware_); });
  EXPECT_NE(e.find("ran on 4 hosts"), std::string::npos) << e;
  EXPECT_NE(e.find("--nodes 4"), std::string::npos) << e;
}

TEST(Expected, AFileWithItsOwnTopologyIsPricedOnItAndRefusesAnother) {
  testing::ScratchDir dir;
  testing::FixtureFile f;
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  for (std::uint64_t b : {1024ULL, 1048576ULL}) f.add_point("block", "tp", "all_reduce", b, 50.0 + static_cast<double>(b) / 100.0);
  const auto file = results::ResultsFile::open(f.write(dir.path() / "run.h5"));
  const Report r = build_report(file, std::nullopt, "");
  EXPECT_TRUE(r.expected.known) << r.expected.note;
  EXPECT_EQ(r.expected.points.size(), 2U);
  EXPECT_EQ(r.expected.hardware, "the topology kept in the results file");
  const ReportHardware other{topology::load_offline_topology({"", "p5.48xlarge", 1}, true), "--node-type p5.48xlarge --nodes 1"};
  EXPECT_NE(test_support::error_of([&] { report_predictors(file, "", &other); }).find("keeps the topology it was measured on"),
            std::string::npos);
}

}  // namespace
}  // namespace meshbench::analysis
