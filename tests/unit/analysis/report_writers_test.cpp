// The report's writers format one Report four ways; each must carry the ranking.
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/report/report.hpp"
#include "analysis/report/report_writers.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

// RFC 4180 fields of one CSV line (quotes, doubled quotes, commas inside quotes).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

class ReportWritersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    f_.add_mapping("fast,quoted \"name\"", "tp-cp-ep-dp-pp");
    f_.add_mapping("slow", "tp-cp-dp-ep-pp");
    for (std::uint64_t b : {1024ULL, 65536ULL}) {
      f_.add_point("fast,quoted \"name\"", "tp", "all_reduce", b, 10.0, {}, {9.0, 11.0});
      f_.add_point("slow", "tp", "all_reduce", b, 40.0, {}, {20.0, 60.0});
    }
    f_.set_predicted("slow", {{"tp", 30.0}, {"step", 30.0}});
    f_.set_predicted("fast,quoted \"name\"", {{"tp", 10.0}, {"step", 10.0}});
    file_ = std::make_unique<results::ResultsFile>(results::ResultsFile::open(f_.write(dir_ / "run.h5")));
    report_ = build_report(*file_, std::nullopt, "");
  }
  std::string render(OutputFormat format) {
    std::ostringstream out;
    make_report_writer(format)->write(report_, out);
    return out.str();
  }

  testing::ScratchDir dir_;
  testing::FixtureFile f_;
  std::unique_ptr<results::ResultsFile> file_;
  Report report_;
};

TEST_F(ReportWritersTest, JsonCarriesRankingCurvesSpreadAndPredictions) {
  const auto j = nlohmann::json::parse(render(OutputFormat::json));
  EXPECT_EQ(j["schema"], "meshbench.report");
  EXPECT_EQ(j["ranking"]["basis"], "default");
  ASSERT_EQ(j["ranking"]["mappings"].size(), 2U);
  EXPECT_EQ(j["ranking"]["mappings"][0]["name"], "fast,quoted \"name\"");
  EXPECT_NEAR(j["ranking"]["mappings"][1]["score"].get<double>(), 4.0, 1e-12);
  EXPECT_EQ(j["curves"].size(), 2U);
  EXPECT_EQ(j["group_spread"].size(), 4U);
  EXPECT_EQ(j["group_spread_largest"][0]["bytes"], 65536);
  EXPECT_EQ(j["best"]["mapping"], "fast,quoted \"name\"");
  ASSERT_TRUE(j["predictions"].is_object());
  EXPECT_NEAR(j["predictions"]["rank_correlation"].get<double>(), 1.0, 1e-12);  // predicted order = measured order
}

TEST_F(ReportWritersTest, PointsWithWrongResultsAreNamedInEveryFormat) {
  // One point whose check counted 7 wrong elements: the report names it by its key, never
  // averages it away; the others' checks were clean.
  testing::FixtureFile f;
  f.add_mapping("fast", "tp-cp-ep-dp-pp");
  f.add_point("fast", "tp", "all_reduce", 1024, 10.0);
  f.add_point("fast", "tp", "all_reduce", 65536, 12.0).row.wrong = 7;
  const auto file = results::ResultsFile::open(f.write(dir_ / "wrong.h5"));
  report_ = build_report(file, std::nullopt, "");
  ASSERT_EQ(report_.wrong.size(), 1U);
  EXPECT_EQ(report_.wrong[0].point, file.key_of(file.measurements()[1]));
  EXPECT_EQ(report_.wrong[0].wrong, 7);
  const auto j = nlohmann::json::parse(render(OutputFormat::json));
  ASSERT_EQ(j["wrong"].size(), 1U);
  EXPECT_EQ(j["wrong"][0]["bytes"], 65536);
  EXPECT_EQ(j["wrong"][0]["wrong"], 7);
  EXPECT_NE(render(OutputFormat::csv).find("wrong,1,fast,tp,all_reduce,per_iteration,,65536,wrong_elements,7,"), std::string::npos);
  const std::string text = render(OutputFormat::text);
  EXPECT_NE(text.find("WRONG RESULTS"), std::string::npos);
  EXPECT_NE(text.find("64 KiB"), std::string::npos);
}

TEST_F(ReportWritersTest, CsvIsOneRectangularTidyTable) {
  std::istringstream in(render(OutputFormat::csv));
  std::string line;
  std::getline(in, line);
  const auto header = csv_fields(line);
  ASSERT_EQ(header.size(), 11U);
  EXPECT_EQ(header[0], "section");
  int rows = 0, rankings = 0;
  bool saw_quoted = false;
  while (std::getline(in, line)) {
    const auto f = csv_fields(line);
    ASSERT_EQ(f.size(), header.size()) << line;
    ++rows;
    rankings += f[0] == "ranking" ? 1 : 0;
    saw_quoted = saw_quoted || f[2] == "fast,quoted \"name\"";
  }
  EXPECT_GT(rows, 10);
  EXPECT_EQ(rankings, 4);  // per mapping: the total and its one dimension
  EXPECT_TRUE(saw_quoted);
}

TEST_F(ReportWritersTest, TextAndMarkdownServeBothReaders) {
  const std::string text = render(OutputFormat::text);
  for (const char* needle : {"ML view", "Infrastructure view", "slow", "busbw GB/s", "apply the best mapping", "spread across groups",
                             "predicted against measured", "Megatron-LM: --tensor-model-parallel-size 2"}) {
    EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text;
  }
  const std::string md = render(OutputFormat::markdown);
  EXPECT_NE(md.find("## ML view"), std::string::npos);
  EXPECT_NE(md.find("| ---: |"), std::string::npos);
  EXPECT_NE(md.find("fast,quoted \"name\""), std::string::npos);
}

}  // namespace
}  // namespace meshbench::analysis
