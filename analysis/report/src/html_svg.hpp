#pragma once
// The HTML report's pictures as inline SVG: where a dimension's groups land, the slot × slot
// link classes, and log-log charts. Pure rendering of what they are given.
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

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

struct Series {
  std::string name, colour;
  std::vector<std::pair<double, double>> points;  // (x, y), both > 0 to be drawn
};

// A log-log line chart; with `x_bytes` the x ticks are the points' sizes as "4 KiB".
void line_chart_svg(std::ostream& out, const std::string& id, const std::string& x_label, const std::string& y_label,
                    const std::vector<Series>& series, bool x_bytes);
// Log-log points with the diagonal y = x (predicted on x, measured on y).
void scatter_svg(std::ostream& out, const std::string& id, const std::string& x_label, const std::string& y_label,
                 const std::vector<Series>& series);

}  // namespace meshbench::analysis::detail
