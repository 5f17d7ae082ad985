#pragma once
// The HTML report's pictures as inline SVG: the charts of analysis/report/charts.hpp and the
// slot × slot link classes. Pure rendering of what they are given.
#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/report/charts.hpp"
#include "analysis/report/placement.hpp"

namespace meshbench::analysis::detail {

// A cells chart's geometry, fixed so that a reader (the browser test) can find the cell of column
// c and row r at left + c·(cell_w + gap_x), top + r·(cell_h + gap_y): in a placement picture slot
// s of node n, c = s − the node's first slot.
struct CellsGeometry {
  static constexpr int cell_w = 48, cell_h = 34, gap_x = 16, gap_y = 30, left = 104, top = 40;
};

// <svg id="link-matrix">: slot × slot, each cell the colour of its link class.
void link_matrix_svg(std::ostream& out, const SlotGrid& grid);

// A chart as describe_charts describes it (analysis/report/charts.hpp): a <figure> holding its
// title and <svg id="ID" data-kind="KIND">: log axes with its series as polylines with dots
// (lines) or dots (points), the diagonal y = x when asked for, and a legend of the series in
// their colours; bars and ranges on a linear axis; cells as <g class="cell" data-series="I">
// around <rect id="ID-sK"> (cell K counted row by row), curves beneath, the key under them.
void chart_svg(std::ostream& out, const Chart& chart);

}  // namespace meshbench::analysis::detail
