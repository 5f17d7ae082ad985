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
#include "analysis/report/text_table.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

const ChartFigure& figure_named(const std::vector<ChartFigure>& figures, const std::string& name) {
  for (const auto& f : figures) {
    if (f.file_name == name) return f;
  }
  throw std::runtime_error("no figure " + name);
}

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
      const auto& k = c.key;
      if (k.mapping == mapping && k.dim == dim && k.timing == report_.ranking.timing && k.concurrency == "concurrent") return c;
    }
    throw std::runtime_error("no curve " + mapping + " " + dim);
  }

  testing::ScratchDir dir_;
  testing::FixtureFile f_;
  std::unique_ptr<results::ResultsFile> file_;
  Report report_;
};

TEST_F(ReportChartsTest, BusbwFigurePerDimensionPanelPerOpLinePerMappingInRankOrder) {
  auto figures = describe_charts(report_);
  ASSERT_GE(figures.size(), 4U);
  EXPECT_EQ(figures[0].file_name, "ranking.png");  // the page's order: the ranking, then the placement
  EXPECT_EQ(figures[1].file_name, "placement.png");
  figures.erase(figures.begin(), figures.begin() + 2);
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
  const ChartFigure& acc = figure_named(figures, "predicted_vs_measured.png");
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

TEST_F(ReportChartsTest, WithoutAccuracyThePlansStepPredictionsAreADotPerMappingNotedWithItsPlace) {
  // The report's own accuracy takes the figure's name; the plan's chart only stands in for it.
  EXPECT_EQ(figure_named(describe_charts(report_), "predicted_vs_measured.png").panels.front().id, "accuracy-points");
  Report r = report_;
  r.accuracy.reset();
  // Two mappings predicted nearly equal (their dots almost coincide), and a dimension row that
  // is not a step's.
  r.predictions = PredictionCheck{true, "the plan's step time", {}, 1.0, 2};
  r.predictions->rows = {{"fast", "step", 100, 120, 1, 1}, {"slow", "step", 101, 121, 2, 2}, {"fast", "tp", 50, 60, 1, 1}};
  const ChartFigure fig = figure_named(describe_charts(r), "predicted_vs_measured.png");
  ASSERT_EQ(fig.panels.size(), 1U);
  const Chart& c = fig.panels[0];
  EXPECT_EQ(c.id, "plan-predictions");
  EXPECT_EQ(c.kind, Chart::Kind::points);
  EXPECT_TRUE(c.diagonal);
  ASSERT_EQ(c.series.size(), 1U);
  EXPECT_EQ(c.series[0].points, (std::vector<std::pair<double, double>>{{100, 120}, {101, 121}}));
  EXPECT_EQ(c.series[0].notes, (std::vector<std::string>{"#1 fast", "#2 slow"}));
  // The page draws it in the plan's part, both notes a line apart although their dots are not.
  std::ostringstream page;
  HtmlReportWriter().write(r, page);
  const std::string html = page.str();
  const auto svg = html.find("<svg id=\"plan-predictions\"");
  ASSERT_NE(svg, std::string::npos);
  EXPECT_GT(svg, html.find("The plan's predictions"));
  const auto y_of = [&](const std::string& note) {
    const auto at = html.find("\">" + note + "</text>", svg);
    const auto y = html.rfind(" y=\"", at);
    return std::stod(html.substr(y + 4));
  };
  EXPECT_GE(y_of("#1 fast") - y_of("#2 slow"), 11.0 - 1e-9);  // slow measured more: its dot and note on top
  // Without like for like only the order compares: no diagonal.
  r.predictions->like_for_like = false;
  EXPECT_FALSE(figure_named(describe_charts(r), "predicted_vs_measured.png").panels[0].diagonal);
}

TEST_F(ReportChartsTest, SvgDrawsTheDescriptionsSeries) {
  const Chart tp = figure_named(describe_charts(report_), "busbw_tp.png").panels.front();
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
  const ChartFigure acc = figure_named(describe_charts(report_), "predicted_vs_measured.png");
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
  EXPECT_EQ(j[0]["file_name"], "ranking.png");
  EXPECT_EQ(j[0]["panels"][0]["kind"], "bars");
  EXPECT_EQ(j[0]["panels"][0]["y"]["categories"][0], "#1 fast");
  EXPECT_EQ(j[0]["panels"][0]["reference"], 1.0);
  EXPECT_EQ(j[0]["panels"][0]["series"][0]["notes"].size(), 2U);
  EXPECT_EQ(j[1]["file_name"], "placement.png");
  EXPECT_EQ(j[1]["rows"][1]["label"], "#2 slow");
  EXPECT_EQ(j[1]["rows"][1]["panels"], 4);
  const auto& cells = j[1]["panels"][4];  // slow's tp: each group's hop crosses the nodes
  EXPECT_EQ(cells["kind"], "cells");
  EXPECT_EQ(cells["series"][0]["notes"][1], "r1");
  EXPECT_EQ(cells["curves"][0]["from"], nlohmann::json::array({0.0, 0.0}));
  EXPECT_EQ(cells["curves"][0]["to"], nlohmann::json::array({0.0, 1.0}));
  EXPECT_EQ(cells["curves"][0]["stroke"]["name"], "NET");
  EXPECT_EQ(cells["curves"][0]["stroke"]["dash"], link_dash("NET"));
  EXPECT_EQ(cells["key"].size(), 1U);
  EXPECT_EQ(j[2]["file_name"], "busbw_tp.png");
  EXPECT_EQ(j[2]["columns"], 0);
  EXPECT_EQ(j[2]["rows"], nlohmann::json::array());
  const auto& panel = j[2]["panels"][0];
  EXPECT_EQ(panel["id"], "busbw-0");
  EXPECT_EQ(panel["kind"], "lines");
  EXPECT_EQ(panel["x"]["bytes"], true);
  EXPECT_EQ(panel["y"]["label"], "busbw (GB/s)");
  EXPECT_EQ(panel["diagonal"], false);
  EXPECT_EQ(panel["series"][0]["name"], "#1 fast");
  EXPECT_EQ(panel["series"][0]["colour"], group_colour(0));
  EXPECT_EQ(panel["series"][0]["points"][0][0], 1024.0);
  EXPECT_DOUBLE_EQ(panel["series"][0]["points"][0][1].get<double>(), figures[2].panels[0].series[0].points[0].second);
  EXPECT_EQ(panel["curves"], nlohmann::json::array());
  EXPECT_EQ(panel["reference"], nullptr);
  for (const auto& f : j) {
    if (f["file_name"] == "predicted_vs_measured.png") {
      EXPECT_EQ(f["panels"][1]["diagonal"], true);
    }
  }
}

// Without a workload: a bar per mapping, best on top, its geometric-mean ratio written at its end,
// a line at 1; the page draws it in the ranking section, the bars' lengths in proportion.
TEST_F(ReportChartsTest, RankingBarsPerMappingBestOnTopWithALineAtOne) {
  ASSERT_EQ(report_.ranking.basis, Ranking::Basis::default_ratio);
  const auto figures = describe_charts(report_);
  const ChartFigure& fig = figure_named(figures, "ranking.png");
  ASSERT_EQ(fig.panels.size(), 1U);
  const Chart& c = fig.panels[0];
  EXPECT_EQ(c.id, "ranking-chart");
  EXPECT_EQ(c.kind, Chart::Kind::bars);
  EXPECT_EQ(c.y.categories, (std::vector<std::string>{"#1 fast", "#2 slow"}));
  ASSERT_EQ(c.series.size(), 1U);
  const auto& k = report_.ranking.mappings;
  ASSERT_EQ(c.series[0].points.size(), 2U);
  EXPECT_EQ(c.series[0].points[0], (std::pair<double, double>{k[0].score, 0.0}));
  EXPECT_EQ(c.series[0].points[1], (std::pair<double, double>{k[1].score, 1.0}));
  EXPECT_GT(k[1].score, k[0].score);
  ASSERT_EQ(c.series[0].notes.size(), 2U);
  EXPECT_EQ(c.series[0].notes[0], fixed(k[0].score, 3));
  EXPECT_DOUBLE_EQ(c.reference, 1.0);
  EXPECT_DOUBLE_EQ(c.x.from, std::min(0.9, k[0].score * 0.95));
  EXPECT_EQ(c.title, "ranking without a workload (" + report_.ranking.timing + " concurrent medians)");

  std::ostringstream out;
  detail::chart_svg(out, c);
  const std::string svg = out.str();
  EXPECT_NE(svg.find("<svg id=\"ranking-chart\""), std::string::npos);
  EXPECT_NE(svg.find("data-kind=\"bars\""), std::string::npos);
  EXPECT_NE(svg.find(">#2 slow</text>"), std::string::npos);
  EXPECT_NE(svg.find(">" + c.series[0].notes[1] + "</text>"), std::string::npos);
  // Bars start at 0 (clipped to the axis): the slower mapping's is the longer.
  std::vector<double> widths;
  for (auto at = svg.find("<rect x="); at != std::string::npos; at = svg.find("<rect x=", at + 1)) {
    const auto w = svg.find("width=\"", at) + 7;
    widths.push_back(std::stod(svg.substr(w)));
  }
  ASSERT_EQ(widths.size(), 3U);  // the frame, then a bar per mapping
  EXPECT_GT(widths[2], widths[1]);
  EXPECT_NE(svg.find("stroke=\"#000\""), std::string::npos);  // the line at 1
  std::ostringstream page;
  HtmlReportWriter().write(report_, page);
  const auto ranking = page.str().find("<section id=\"ranking\">");
  ASSERT_NE(ranking, std::string::npos);
  EXPECT_EQ(page.str().find(svg), page.str().find("<figure", ranking));  // the section's first figure
}

// Fixture: two nodes of two slots, PHB inside a node, NET between. "fast" is identity: its tp
// groups {0,1} {2,3} lie inside a node each. "slow" swaps ranks 1 and 2 (slot_of_rank 0,2,1,3):
// its tp group 0 holds slot 0 of both nodes, group 1 slot 1 of both.
TEST_F(ReportChartsTest, PlacementCellPerSlotInItsGroupsColourWithItsRankAndAHopPerPair) {
  ASSERT_TRUE(report_.placement);
  const auto slow = placement_charts(*report_.placement, 1);
  ASSERT_EQ(slow.size(), 4U);  // tp, dp, ep, edp; cp, pp, etp have groups of one
  const Chart& tp = slow[0];
  EXPECT_EQ(tp.id, "placement-1-tp");
  EXPECT_EQ(tp.title, "tp: 2 groups of 2");
  EXPECT_EQ(tp.kind, Chart::Kind::cells);
  EXPECT_EQ(tp.x.categories, (std::vector<std::string>{"slot 0", "slot 1"}));
  EXPECT_EQ(tp.y.categories, (std::vector<std::string>{"node-0", "node-1"}));
  ASSERT_EQ(tp.series.size(), 2U);  // every slot holds a rank: no series of unused slots
  using Cells = std::vector<std::pair<double, double>>;
  EXPECT_EQ(tp.series[0].name, "tp group 0");
  EXPECT_EQ(tp.series[0].colour, group_colour(0));
  EXPECT_EQ(tp.series[0].points, (Cells{{0, 0}, {0, 1}}));  // rank 0 on node-0's slot 0, rank 1 on node-1's
  EXPECT_EQ(tp.series[0].notes, (std::vector<std::string>{"r0", "r1"}));
  EXPECT_EQ(tp.series[1].colour, group_colour(1));
  EXPECT_EQ(tp.series[1].points, (Cells{{1, 0}, {1, 1}}));
  EXPECT_EQ(tp.series[1].notes, (std::vector<std::string>{"r2", "r3"}));
  ASSERT_EQ(tp.curves.size(), 2U);  // groups of two: one hop each, no ring back
  EXPECT_EQ(tp.curves[0].from, (std::pair<double, double>{0, 0}));
  EXPECT_EQ(tp.curves[0].to, (std::pair<double, double>{0, 1}));
  EXPECT_EQ(tp.curves[0].colour, group_colour(0));
  EXPECT_EQ(tp.curves[0].stroke.name, "NET");
  EXPECT_EQ(tp.curves[0].stroke.dash, link_dash("NET"));
  EXPECT_EQ(tp.curves[1].colour, group_colour(1));
  ASSERT_EQ(tp.key.size(), 1U);
  EXPECT_EQ(tp.key[0].name, "NET");
  // fast's tp stays inside the nodes: PHB, drawn thinner than NET.
  const Chart fast_tp = placement_charts(*report_.placement, 0)[0];
  EXPECT_EQ(fast_tp.series[0].points, (Cells{{0, 0}, {1, 0}}));
  ASSERT_EQ(fast_tp.key.size(), 1U);
  EXPECT_EQ(fast_tp.key[0].name, "PHB");
  EXPECT_LT(fast_tp.key[0].width, tp.key[0].width);

  // placement.png: a row per mapping in rank order, its panels placement_charts'.
  const auto figures = describe_charts(report_);
  const ChartFigure& fig = figure_named(figures, "placement.png");
  ASSERT_EQ(fig.rows.size(), 2U);
  EXPECT_EQ(fig.rows[0].label, "#1 fast");
  EXPECT_EQ(fig.rows[0].panels, 4);
  EXPECT_EQ(fig.rows[1].label, "#2 slow");
  EXPECT_EQ(fig.columns, 4);
  ASSERT_EQ(fig.panels.size(), 8U);
  EXPECT_EQ(fig.panels[4].id, "placement-1-tp");
  EXPECT_EQ(fig.panels[4].series[0].points, tp.series[0].points);

  // The page draws that description: slot 2 (node-1's first) in group 0's colour where
  // docs/report.md puts it, labelled with rank 1, and every panel of placement.png as it is.
  std::ostringstream out;
  detail::chart_svg(out, tp);
  const std::string svg = out.str();
  EXPECT_NE(svg.find("<rect id=\"placement-1-tp-s2\" x=\"104.0\" y=\"104.0\" width=\"48\" height=\"34\" rx=\"4\" fill=\"" +
                     group_colour(0) + "\"/><text x=\"128.0\" y=\"125.0\" class=\"rank\" text-anchor=\"middle\">r1</text>"),
            std::string::npos)
      << svg;
  EXPECT_NE(svg.find("data-link=\"NET\""), std::string::npos);
  std::ostringstream page;
  HtmlReportWriter().write(report_, page);
  const auto section = page.str().find("<section id=\"placement\">");
  ASSERT_NE(section, std::string::npos);
  for (const Chart& c : fig.panels) {
    std::ostringstream drawn;
    detail::chart_svg(drawn, c);
    const auto at = page.str().find(drawn.str());
    EXPECT_NE(at, std::string::npos) << c.id;
    EXPECT_GT(at, section) << c.id;
  }
}

// Every group's median per mapping at the largest size, the slowest in red with its group and
// hosts beside it, a panel per dimension and op; the page draws it in the spread section.
TEST(ReportCharts, GroupSpreadPanelPerDimensionAndOpCategoryPerMappingInRankOrder) {
  testing::ScratchDir dir;
  testing::FixtureFile f;
  f.add_mapping("identity", "tp-cp-ep-dp-pp");               // TP groups: slots {0,1} on node-0, {2,3} on node-1
  f.add_mapping("crossed", "tp-cp-ep-dp-pp", {0, 2, 1, 3});  // TP groups span both nodes
  f.add_point("identity", "tp", "all_reduce", 1024, 12.0, {}, {10.0, 30.0});
  f.add_point("identity", "tp", "all_reduce", 4096, 20.0, {}, {15.0, 25.0});
  f.add_point("crossed", "tp", "all_reduce", 1024, 50.0, {}, {60.0, 40.0});
  f.add_point("crossed", "tp", "all_reduce", 4096, 50.0, {}, {55.0, 45.0});
  const auto file = results::ResultsFile::open(f.write(dir / "run.h5"));
  const Report report = build_report(file, std::nullopt, "");
  const auto figures = describe_charts(report);
  const ChartFigure& fig = figure_named(figures, "group_spread.png");
  EXPECT_EQ(&fig, &figures.back());
  EXPECT_EQ(fig.columns, 3);
  ASSERT_EQ(fig.panels.size(), 1U);
  const Chart& c = fig.panels[0];
  EXPECT_EQ(c.id, "spread-0");
  EXPECT_EQ(c.kind, Chart::Kind::ranges);
  EXPECT_EQ(c.title, "tp all_reduce at 4 KiB");
  ASSERT_EQ(report.ranking.mappings.front().name, "identity");
  EXPECT_EQ(c.x.categories, (std::vector<std::string>{"#1", "#2"}));
  EXPECT_DOUBLE_EQ(c.y.from, 0.0);
  ASSERT_EQ(c.series.size(), 2U);
  EXPECT_EQ(c.series[0].points, (std::vector<std::pair<double, double>>{{0, 15.0}, {0, 25.0}, {1, 55.0}, {1, 45.0}}));
  EXPECT_EQ(c.series[1].colour, "#d62728");
  EXPECT_EQ(c.series[1].points, (std::vector<std::pair<double, double>>{{0, 25.0}, {1, 55.0}}));
  EXPECT_EQ(c.series[1].notes, (std::vector<std::string>{"g1 node-1", "g0 node-0,node-1"}));

  std::ostringstream out;
  detail::chart_svg(out, c);
  const std::string svg = out.str();
  EXPECT_NE(svg.find("data-kind=\"ranges\""), std::string::npos);
  std::size_t dots = 0;
  for (auto at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++dots;
  EXPECT_EQ(dots, 6U);
  EXPECT_NE(svg.find(">g0 node-0,node-1</text>"), std::string::npos);
  std::ostringstream page;
  HtmlReportWriter().write(report, page);
  const auto spread = page.str().find("<section id=\"spread\">");
  ASSERT_NE(spread, std::string::npos);
  EXPECT_GT(page.str().find(svg), spread);
}

}  // namespace
}  // namespace meshbench::analysis
