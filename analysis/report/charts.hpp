#pragma once
// The report's charts, described once: what each plots and from which of the report's data.
// Two renderers draw these descriptions and derive nothing themselves: the HTML page's inline
// SVG (src/html_svg.cpp, chart_svg) and `--plot`'s matplotlib script (plots/plots.py, which gets
// them as the "charts" array of its input, charts_to_json). docs/report.md, "Charts".
#include <cstddef>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/report/placement.hpp"
#include "analysis/report/report.hpp"

namespace meshbench::analysis {

// An axis of lines and points is logarithmic: with `bytes` in base 2, ticked at the points'
// sizes as "4 KiB" (at most about eight of them); otherwise in base 10, ticked at 1, 2, 5 × 10^k.
// Bars and ranges have one axis of `categories` (position i is categories[i]) and one linear
// value axis starting at `from`; cells have two, the columns on x and the rows on y.
struct ChartAxis {
  std::string label;
  bool bytes = false;
  std::vector<std::string> categories = {};  // "= {}": a chart of log axes leaves it out of its initializer
  double from = 0;
};

// One line, set of dots, set of bars or set of cells: its legend text, colour ("#1f77b4") and
// (x, y) points, all finite (describe_charts leaves out any other; on a logarithmic axis, any not
// > 0); `notes`, when not empty, one text per point, written beside it (in it, for a cell).
struct ChartSeries {
  std::string name, colour;
  std::vector<std::pair<double, double>> points;
  std::vector<std::string> notes = {};  // "= {}": most series leave it out of their initializer
};

// How a curve of a cells chart is drawn, and its entry in the chart's key: what it stands for
// ("NET"), an SVG stroke-dasharray ("12 4 2 4"; "" solid) and its width in the page's pixels.
struct ChartStroke {
  std::string name, dash;
  double width = 2.5;
};

// A curve of a cells chart from the centre of cell `from` (column, row) to the centre of `to`.
struct ChartCurve {
  std::pair<double, double> from, to;
  std::string colour;
  ChartStroke stroke;
};

struct Chart {
  // lines, points: log-log, each series a line with dots, or dots.
  // bars: horizontal bars, the categories on y (the first on top); a point is (value, category),
  //   the series stacked in their order; a note sits at the end of its bar; `reference` a line
  //   across the bars at that value (NaN: none).
  // ranges: the categories on x; a point is (category, value); per category a grey line from
  //   its least to its greatest value of any series, then each series' dots, a later series'
  //   larger and over an earlier's, each note beside its dot.
  // cells: a grid of x's categories (columns) by y's (rows, the first on top); a point is
  //   (column, row), a cell in its series' colour with its note inside; cell k is the k-th of
  //   all the series' cells counted row by row. `curves` run beneath the cells, bowed into the
  //   gaps (up within a row, to the side between rows); `key` lists their strokes under the grid.
  enum class Kind { lines, points, bars, ranges, cells };
  std::string id;  // the HTML page's <svg id>
  std::string title;
  Kind kind = Kind::lines;
  ChartAxis x, y;
  bool diagonal = false;  // one range on both axes and the line y = x (predicted against measured)
  std::vector<ChartSeries> series;
  double reference = std::numeric_limits<double>::quiet_NaN();
  std::vector<ChartCurve> curves = {};  // "= {}": only cells have curves and a key
  std::vector<ChartStroke> key = {};
};

// A row of a figure's panels: its label, written beside its first panel, and how many panels
// of the figure, in order, it holds.
struct ChartRow {
  std::string label;
  int panels = 0;
};

// The charts of one PNG (`--plot`), as panels `columns` to a row (0: all in one row), or in
// `rows` when it names them, under one title (none when empty); the HTML page draws each panel as
// a chart of its own.
struct ChartFigure {
  std::string file_name;  // "busbw_tp.png"
  std::string title;
  std::vector<Chart> panels;
  int columns = 0;
  std::vector<ChartRow> rows = {};  // "= {}": most figures leave it out of their initializer
};

// The charts both renderers draw, in the page's order:
//  - ranking.png ("ranking-chart"): a bar per mapping, best on top; with a workload its time per
//    step stacked by dimension (one colour per dimension) in µs, ms or s, the total at the end;
//    without one the geometric-mean ratio, a line at 1;
//  - placement.png: where the groups of the best four mappings with a dimension of groups land,
//    a row per mapping ("#1 name"), its panels placement_charts' (below);
//  - busbw_<dim>.png, one per dimension (meshbench's order): a panel per op ("busbw-K", K
//    counting every panel from 0), busbw against size in the ranking's timing mode, concurrent,
//    one line per mapping in rank order, each mapping in its rank's colour (group_colour);
//  - predicted_vs_measured.png when the accuracy section has a predictor: every point
//    ("accuracy-points") and every mapping's total ("accuracy-mappings"), predicted against
//    measured, one colour per predictor; without one, when the plan predicted, the plan's step
//    predictions against the ranking ("plan-predictions"): a dot per mapping noted "#place name",
//    on the diagonal when they compare directly (like for like);
//  - group_spread.png, three panels a row: per dimension and op ("spread-K") at the largest size,
//    in the ranking's timing mode, concurrent, a category per mapping in rank order: each group's
//    median, and the slowest group's in red with its index and hosts beside it.
// The page's link matrix (no PNG draws it) is drawn by html_svg alone. Both renderers write a
// points chart's notes at their dots' right, top to bottom, each at least a line below the last.
std::vector<ChartFigure> describe_charts(const Report& report);

// Where the groups of `placements.mappings[mapping]` land: a cells chart per dimension
// ("placement-K-DIM", K the mapping's index) of the cluster's nodes (rows, by host) × slots
// (columns, "slot 0"): a series per group in group_colour, its members' cells in the group's order,
// each noted with its rank ("r5"), then the slots no rank uses ("#e6e6e6"); a curve per hop of a
// group (PlacementHop: a ring in rank order, one for a group of two) in its group's colour,
// stroked by the link class between the two slots (link_dash; NET wider); the key those classes,
// closest first.
// The page draws every mapping's, placement.png the best four's.
std::vector<Chart> placement_charts(const Placements& placements, std::size_t mapping);

const char* to_string(Chart::Kind kind);
// [{file_name, title, columns, rows: [{label, panels}], panels: [{id, title, kind, x: {label,
//   bytes, categories, from}, y, diagonal, reference (null: none), series: [{name, colour, points:
//   [[x, y], ...], notes}], curves: [{from: [x, y], to, colour, stroke: {name, dash, width}}],
//   key: [{name, dash, width}]}]}]
nlohmann::json charts_to_json(const std::vector<ChartFigure>& figures);

}  // namespace meshbench::analysis
