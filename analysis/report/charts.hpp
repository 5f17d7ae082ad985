#pragma once
// The report's charts, described once: what each plots and from which of the report's data.
// Two renderers draw these descriptions and derive nothing themselves: the HTML page's inline
// SVG (src/html_svg.cpp, chart_svg) and `--plot`'s matplotlib script (plots/plots.py, which gets
// them as the "charts" array of its input, charts_to_json). docs/report.md, "Charts".
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/report/report.hpp"

namespace meshbench::analysis {

// An axis of lines and points is logarithmic: with `bytes` in base 2, ticked at the points'
// sizes as "4 KiB" (at most about eight of them); otherwise in base 10, ticked at 1, 2, 5 × 10^k.
// Bars and ranges have one axis of `categories` (position i is categories[i]) and one linear
// value axis starting at `from`.
struct ChartAxis {
  std::string label;
  bool bytes = false;
  std::vector<std::string> categories = {};  // "= {}": a chart of log axes leaves it out of its initializer
  double from = 0;
};

// One line, set of dots or set of bars: its legend text, colour ("#1f77b4") and (x, y) points,
// all finite (describe_charts leaves out any other; on a logarithmic axis, any not > 0); `notes`,
// when not empty, one text per point, written beside it.
struct ChartSeries {
  std::string name, colour;
  std::vector<std::pair<double, double>> points;
  std::vector<std::string> notes = {};  // "= {}": most series leave it out of their initializer
};

struct Chart {
  // lines, points: log-log, each series a line with dots, or dots.
  // bars: horizontal bars, the categories on y (the first on top); a point is (value, category),
  //   the series stacked in their order; a note sits at the end of its bar; `reference` a line
  //   across the bars at that value (NaN: none).
  // ranges: the categories on x; a point is (category, value); per category a grey line from
  //   its least to its greatest value of any series, then each series' dots, a later series'
  //   larger and over an earlier's, each note beside its dot.
  enum class Kind { lines, points, bars, ranges };
  std::string id;  // the HTML page's <svg id>
  std::string title;
  Kind kind = Kind::lines;
  ChartAxis x, y;
  bool diagonal = false;  // one range on both axes and the line y = x (predicted against measured)
  std::vector<ChartSeries> series;
  double reference = std::numeric_limits<double>::quiet_NaN();
};

// The charts of one PNG (`--plot`), as panels `columns` to a row (0: all in one row), under one
// title (none when empty); the HTML page draws each panel as a chart of its own.
struct ChartFigure {
  std::string file_name;  // "busbw_tp.png"
  std::string title;
  std::vector<Chart> panels;
  int columns = 0;
};

// The charts both renderers draw, in the page's order:
//  - ranking.png ("ranking-chart"): a bar per mapping, best on top; with a workload its time per
//    step stacked by dimension (one colour per dimension) in µs, ms or s, the total at the end;
//    without one the geometric-mean ratio, a line at 1;
//  - busbw_<dim>.png, one per dimension (meshbench's order): a panel per op ("busbw-K", K
//    counting every panel from 0), busbw against size in the ranking's timing mode, concurrent,
//    one line per mapping in rank order, each mapping in its rank's colour (group_colour);
//  - predicted_vs_measured.png when the accuracy section has a predictor: every point
//    ("accuracy-points") and every mapping's total ("accuracy-mappings"), predicted against
//    measured, one colour per predictor;
//  - group_spread.png, three panels a row: per dimension and op ("spread-K") at the largest size,
//    in the ranking's timing mode, concurrent, a category per mapping in rank order: each group's
//    median, and the slowest group's in red with its index and hosts beside it.
// placement.png and the plan's predictions (without an accuracy section) are drawn by plots.py
// alone; the page's placement pictures and link matrix by html_svg alone.
std::vector<ChartFigure> describe_charts(const Report& report);

const char* to_string(Chart::Kind kind);
// [{file_name, title, columns, panels: [{id, title, kind, x: {label, bytes, categories, from}, y,
//   diagonal, reference (null: none), series: [{name, colour, points: [[x, y], ...], notes}]}]}]
nlohmann::json charts_to_json(const std::vector<ChartFigure>& figures);

}  // namespace meshbench::analysis
