#pragma once
// The report's charts, described once: what each plots and from which of the report's data.
// Two renderers draw these descriptions and derive nothing themselves: the HTML page's inline
// SVG (src/html_svg.cpp, chart_svg) and `--plot`'s matplotlib script (plots/plots.py, which gets
// them as the "charts" array of its input, charts_to_json). docs/report.md, "Charts".
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/report/report.hpp"

namespace meshbench::analysis {

// Every axis is logarithmic: with `bytes` in base 2, ticked at the points' sizes as "4 KiB" (at
// most about eight of them); otherwise in base 10, ticked at 1, 2, 5 × 10^k.
struct ChartAxis {
  std::string label;
  bool bytes = false;
};

// One line or set of dots: its legend text, colour ("#1f77b4") and (x, y) points, all > 0 and
// finite (describe_charts leaves out any other).
struct ChartSeries {
  std::string name, colour;
  std::vector<std::pair<double, double>> points;
};

struct Chart {
  enum class Kind { lines, points };
  std::string id;  // the HTML page's <svg id>
  std::string title;
  Kind kind = Kind::lines;
  ChartAxis x, y;
  bool diagonal = false;  // one range on both axes and the line y = x (predicted against measured)
  std::vector<ChartSeries> series;
};

// The charts of one PNG (`--plot`), side by side as panels, under one title; the HTML page
// draws each panel as a chart of its own.
struct ChartFigure {
  std::string file_name;  // "busbw_tp.png"
  std::string title;
  std::vector<Chart> panels;
};

// The charts both renderers draw, in the page's order:
//  - busbw_<dim>.png, one per dimension (meshbench's order): a panel per op ("busbw-K", K
//    counting every panel from 0), busbw against size in the ranking's timing mode, concurrent,
//    one line per mapping in rank order, each mapping in its rank's colour (group_colour);
//  - predicted_vs_measured.png when the accuracy section has a predictor: every point
//    ("accuracy-points") and every mapping's total ("accuracy-mappings"), predicted against
//    measured, one colour per predictor.
// ranking.png, group_spread.png, placement.png and the plan's predictions (without an accuracy
// section) are drawn by plots.py alone; the page's placement pictures and link matrix by
// html_svg alone.
std::vector<ChartFigure> describe_charts(const Report& report);

const char* to_string(Chart::Kind kind);
// [{file_name, title, panels: [{id, title, kind, x: {label, bytes}, y, diagonal,
//   series: [{name, colour, points: [[x, y], ...]}]}]}]
nlohmann::json charts_to_json(const std::vector<ChartFigure>& figures);

}  // namespace meshbench::analysis
