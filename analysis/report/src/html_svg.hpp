#pragma once
// The HTML report's pictures as inline SVG: where a dimension's groups land, the slot × slot
// link classes, and the charts of analysis/report/charts.hpp. Pure rendering of what they are given.
#include <iosfwd>
#include <string>
#include <vector>

#include "analysis/report/charts.hpp"
#include "analysis/report/placement.hpp"

namespace meshbench::analysis::detail {

// A placement picture's geometry, fixed so that a reader (the browser test) can find slot s of
// node n at left + k·(cell_w + gap_x), top + n·(cell_h + gap_y), k = s − the node's first slot.
struct PlacementGeometry {
  static constexpr int cell_w = 48, cell_h = 34, gap_x = 16, gap_y = 30, left = 104, top = 40;
};

// <svg id="ID"> of nodes × slots: each slot filled with its group's colour (grey: unused) and
// labelled with its rank; each group's ring hops drawn beneath the cells, stroked by link class.
void placement_svg(std::ostream& out, const SlotGrid& grid, const DimPlacement& dim, const std::string& id);

// <svg id="link-matrix">: slot × slot, each cell the colour of its link class.
void link_matrix_svg(std::ostream& out, const SlotGrid& grid);

// A chart as describe_charts describes it (analysis/report/charts.hpp): a <figure> holding its
// title, <svg id="ID"> with log axes, its series as polylines with dots (lines) or dots (points),
// the diagonal y = x when asked for, and a legend of the series in their colours.
void chart_svg(std::ostream& out, const Chart& chart);

}  // namespace meshbench::analysis::detail
