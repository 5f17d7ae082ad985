// The charts described once (analysis/report/charts.hpp) on a small known report, and their two
// renderers' inputs: the HTML page's SVG and the plotting script's "charts" JSON.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "analysis/report/charts.hpp"
#include "analysis/report/placement.hpp"
#include "analysis/report/report.hpp"
#include "analysis/report/report_writers.hpp"
#include "analysis/report/src/html_svg.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

class ReportChartsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    f_.add_mapping("fast", "tp-cp-ep-dp-pp");
    f_.add_mapping("slow", "tp-cp-ep-dp-pp", {0, 2, 1, 3});
    for (std::uint64_t b : {1024ULL, 65536ULL}) {
      f_.add_point("fast", "tp", "all_reduce", b, 10.0);
      f_.add_point("slow", "tp", "all_reduce", b, 40.0);
      f_.add_point("fast", "dp", "all_gather", b, 20.0);
      f_.add_point("slow", "dp", "all_gather", b, 20.0);
    }
    file_ = std::make_unique<results::ResultsFile>(results::ResultsFile::open(f_.write(dir_ / "run.h5")));
    report_ = build_report(*file_, std::nullopt, "");
  }
  const Curve& curve(const std::string& mapping, const std::string& dim) const {
    for (const auto& c : report_.curves) {
      if (c.mapping == mapping && c.dim == dim && c.timing == report_.ranking.timing && c.concurrency == "concurrent") return c;
    }
    throw std::runtime_error("no curve " + mapping + " " + dim);
  }

  testing::ScratchDir dir_;
  testing::FixtureFile f_;
  std::unique_ptr<results::ResultsFile> file_;
  Report report_;
};

TEST_F(ReportChartsTest, BusbwFigurePerDimensionPanelPerOpLinePerMappingInRankOrder) {
  const auto figures = describe_charts(report_);
  ASSERT_GE(figures.size(), 2U);
  // Dimensions in meshbench's order: tp before dp.
  EXPECT_EQ(figures[0].file_name, "busbw_tp.png");
  EXPECT_EQ(figures[1].file_name, "busbw_dp.png");
  EXPECT_NE(figures[0].title.find("busbw against size, " + report_.ranking.timing + " concurrent medians"), std::string::npos);
  ASSERT_EQ(figures[0].panels.size(), 1U);
  const Chart& tp = figures[0].panels[0];
  EXPECT_EQ(tp.id, "busbw-0");
  EXPECT_EQ(figures[1].panels[0].id, "busbw-1");
  EXPECT_EQ(tp.title, "tp all_reduce (groups of 2)");
  EXPECT_EQ(tp.kind, Chart::Kind::lines);
  EXPECT_FALSE(tp.diagonal);
  EXPECT_TRUE(tp.x.bytes);
  EXPECT_FALSE(tp.y.bytes);
  EXPECT_EQ(tp.x.label, "message size (nccl-tests convention)");
  EXPECT_EQ(tp.y.label, "busbw (GB/s)");
  ASSERT_EQ(tp.series.size(), 2U);
  // "fast" ranks first, "slow" second; each in its rank's colour.
  ASSERT_EQ(report_.ranking.mappings.front().name, "fast");
  EXPECT_EQ(tp.series[0].name, "#1 fast");
  EXPECT_EQ(tp.series[0].colour, group_colour(0));
  EXPECT_EQ(tp.series[1].name, "#2 slow");
  EXPECT_EQ(tp.series[1].colour, group_colour(1));
  const Curve& fast = curve("fast", "tp");
  ASSERT_EQ(tp.series[0].points.size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(tp.series[0].points[i].first, static_cast<double>(fast.points[i].bytes));
    EXPECT_DOUBLE_EQ(tp.series[0].points[i].second, fast.points[i].busbw_gbps);
  }
  EXPECT_EQ(tp.series[0].points[0].first, 1024.0);
  EXPECT_GT(tp.series[0].points[0].second, tp.series[1].points[0].second);  // 10 µs against 40 µs
}

TEST_F(ReportChartsTest, AccuracyFigureHasEveryPointAndEveryMappingsTotalOnTheDiagonal) {
  ASSERT_TRUE(report_.accuracy && !report_.accuracy->predictors.empty());
  const auto figures = describe_charts(report_);
  const ChartFigure& acc = figures.back();
  EXPECT_EQ(acc.file_name, "predicted_vs_measured.png");
  ASSERT_EQ(acc.panels.size(), 2U);
  const Chart& points = acc.panels[0];
  const Chart& totals = acc.panels[1];
  EXPECT_EQ(points.id, "accuracy-points");
  EXPECT_EQ(totals.id, "accuracy-mappings");
  for (const Chart* c : {&points, &totals}) {
    EXPECT_EQ(c->kind, Chart::Kind::points);
    EXPECT_TRUE(c->diagonal);
    EXPECT_FALSE(c->x.bytes);
    EXPECT_EQ(c->x.label, "predicted (µs)");
    ASSERT_EQ(c->series.size(), report_.accuracy->predictors.size());
  }
  const auto& p = report_.accuracy->predictors[0];
  EXPECT_EQ(points.series[0].name.rfind(p.name, 0), 0U);
  EXPECT_EQ(points.series[0].colour, p.name == "uncalibrated" ? "#ff7f0e" : points.series[0].colour);
  EXPECT_EQ(points.series[0].colour, totals.series[0].colour);  // a predictor keeps its colour
  EXPECT_EQ(points.series[0].points.size(), p.points.size());   // eight points, all positive
  ASSERT_FALSE(points.series[0].points.empty());
  EXPECT_EQ(points.series[0].points[0].first, p.points[0].predicted_us);
  EXPECT_EQ(points.series[0].points[0].second, p.points[0].measured_us);
  std::size_t steps = 0;
  for (const auto& t : p.totals) steps += t.dim == "step" ? 1 : 0;
  EXPECT_EQ(totals.series[0].points.size(), steps);
}

TEST_F(ReportChartsTest, SvgDrawsTheDescriptionsSeries) {
  const Chart tp = describe_charts(report_).front().panels.front();
  std::ostringstream out;
  detail::chart_svg(out, tp);
  const std::string svg = out.str();
  EXPECT_NE(svg.find("<svg id=\"busbw-0\""), std::string::npos);
  EXPECT_NE(svg.find("<figcaption>tp all_reduce (groups of 2)</figcaption>"), std::string::npos);
  for (const auto& s : tp.series) {
    EXPECT_NE(svg.find("stroke=\"" + s.colour + "\" stroke-width=\"2\"><title>" + s.name + "</title></polyline>"), std::string::npos)
        << s.name;
  }
  EXPECT_NE(svg.find(">1 KiB</text>"), std::string::npos);  // bytes ticks
  EXPECT_NE(svg.find(">64 KiB</text>"), std::string::npos);
  EXPECT_EQ(svg.find("stroke-dasharray"), std::string::npos);  // no diagonal
  std::ostringstream page;
  HtmlReportWriter().write(report_, page);
  EXPECT_NE(page.str().find(svg), std::string::npos);  // the page draws exactly that
  EXPECT_NE(page.str().find("<svg id=\"accuracy-points\""), std::string::npos);
  EXPECT_NE(page.str().find("<svg id=\"accuracy-mappings\""), std::string::npos);
}

TEST_F(ReportChartsTest, ScatterSvgHasTheDiagonalAndADotPerPoint) {
  const ChartFigure acc = describe_charts(report_).back();
  std::ostringstream out;
  detail::chart_svg(out, acc.panels[0]);
  const std::string svg = out.str();
  EXPECT_NE(svg.find("stroke-dasharray=\"4 3\""), std::string::npos);
  std::size_t dots = 0;
  for (auto at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++dots;
  std::size_t points = 0;
  for (const auto& s : acc.panels[0].series) points += s.points.size();
  EXPECT_EQ(dots, points);
  EXPECT_EQ(svg.find("<polyline"), std::string::npos);
}

TEST_F(ReportChartsTest, JsonForThePlotScriptCarriesTheSameDescription) {
  const auto figures = describe_charts(report_);
  const auto j = charts_to_json(figures);
  ASSERT_EQ(j.size(), figures.size());
  EXPECT_EQ(j[0]["file_name"], "busbw_tp.png");
  const auto& panel = j[0]["panels"][0];
  EXPECT_EQ(panel["id"], "busbw-0");
  EXPECT_EQ(panel["kind"], "lines");
  EXPECT_EQ(panel["x"]["bytes"], true);
  EXPECT_EQ(panel["y"]["label"], "busbw (GB/s)");
  EXPECT_EQ(panel["diagonal"], false);
  EXPECT_EQ(panel["series"][0]["name"], "#1 fast");
  EXPECT_EQ(panel["series"][0]["colour"], group_colour(0));
  EXPECT_EQ(panel["series"][0]["points"][0][0], 1024.0);
  EXPECT_DOUBLE_EQ(panel["series"][0]["points"][0][1].get<double>(), figures[0].panels[0].series[0].points[0].second);
  EXPECT_EQ(j.back()["panels"][1]["diagonal"], true);
}

}  // namespace
}  // namespace meshbench::analysis
