#include "analysis/report/src/html_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include "analysis/report/text_table.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis::detail {

namespace {

// Coordinates with one decimal: enough for a screen, and stable text for the tests.
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string dash_attr(const std::string& dash) { return dash.empty() ? "" : " stroke-dasharray=\"" + dash + "\""; }

struct Cell {
  double x = 0, y = 0;
};

// The top left corner of a cells chart's cell (column, row).
Cell cell_at(const std::pair<double, double>& column_row) {
  using G = CellsGeometry;
  return {G::left + column_row.first * (G::cell_w + G::gap_x), G::top + column_row.second * (G::cell_h + G::gap_y)};
}

// "node-0 slot 1": a cell by its row's and its column's categories.
std::string cell_name(const Chart& chart, const std::pair<double, double>& column_row) {
  const auto column = static_cast<std::size_t>(std::lround(column_row.first)),
             row = static_cast<std::size_t>(std::lround(column_row.second));
  return (row < chart.y.categories.size() ? chart.y.categories[row] : "?") + " " +
         (column < chart.x.categories.size() ? chart.x.categories[column] : "?");
}

// A curve as a quadratic between the two cells' centres, bowed to one side so that it shows in
// the gaps between cells (the cells are drawn over it).
void curve_path(std::ostream& out, const Chart& chart, const ChartCurve& curve) {
  using G = CellsGeometry;
  const Cell a = cell_at(curve.from), b = cell_at(curve.to);
  const double ax = a.x + G::cell_w / 2.0, ay = a.y + G::cell_h / 2.0, bx = b.x + G::cell_w / 2.0, by = b.y + G::cell_h / 2.0;
  double cx = (ax + bx) / 2, cy = (ay + by) / 2;
  if (ay == by) {
    cy -= G::cell_h + G::gap_y * 0.9;  // the apex lies in the gap above the row
  } else {
    const double dx = bx - ax, dy = by - ay, len = std::hypot(dx, dy);
    // Far enough to the side that the apex clears the cells into the gap beside them.
    cx += -dy / len * (G::cell_w * 1.35);
    cy += dx / len * (G::cell_w * 1.35);
  }
  out << "<path class=\"curve\" data-link=\"" << html_escape(curve.stroke.name) << "\" d=\"M" << num(ax) << " " << num(ay) << " Q"
      << num(cx) << " " << num(cy) << " " << num(bx) << " " << num(by) << "\" fill=\"none\" stroke=\"" << curve.colour
      << "\" stroke-width=\"" << num(curve.stroke.width) << "\"" << dash_attr(curve.stroke.dash) << "><title>"
      << html_escape(cell_name(chart, curve.from) + " – " + cell_name(chart, curve.to) + ": " + curve.stroke.name) << "</title></path>\n";
}

struct LogScale {
  double lo = 1, hi = 10, from = 0, to = 1;  // data range (log10) onto pixels
  LogScale(double min_v, double max_v, double from_px, double to_px) : from(from_px), to(to_px) {
    lo = std::log10(min_v);
    hi = std::log10(max_v);
    if (hi - lo < 1e-9) {
      lo -= 0.5;
      hi += 0.5;
    }
  }
  double operator()(double v) const { return from + (std::log10(v) - lo) / (hi - lo) * (to - from); }
};

// 1, 2, 5 × 10^k within [lo, hi], thinned to at most about eight.
std::vector<double> decade_ticks(double lo, double hi) {
  std::vector<double> t;
  for (int e = static_cast<int>(std::floor(std::log10(lo))); e <= static_cast<int>(std::ceil(std::log10(hi))); ++e) {
    for (const double m : {1.0, 2.0, 5.0}) {
      const double v = m * std::pow(10.0, e);
      if (v >= lo * 0.999 && v <= hi * 1.001) t.push_back(v);
    }
  }
  if (t.size() > 8) {
    std::vector<double> ones;
    for (const double v : t) {
      if (std::fabs(std::log10(v) - std::round(std::log10(v))) < 1e-9) ones.push_back(v);
    }
    t = ones;
  }
  return t;
}

std::string tick_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

struct Frame {
  double width = 480, height = 300, left = 62, right = 14, top = 14, bottom = 52;
};

// The axes, grid and ticks of a log-log chart over [x0, x1] × [y0, y1].
void axes(std::ostream& out, const Frame& f, const LogScale& xs, const LogScale& ys, const std::vector<double>& xticks, bool x_bytes,
          const std::string& x_label, const std::string& y_label) {
  out << "<rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\"" << num(f.width - f.left - f.right) << "\" height=\""
      << num(f.height - f.top - f.bottom) << "\" fill=\"#fff\" stroke=\"#999\"/>\n";
  for (const double t : xticks) {
    const double x = xs(t);
    out << "<line x1=\"" << num(x) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(x) << "\" y2=\"" << num(f.height - f.bottom)
        << "\" stroke=\"#eee\"/><text x=\"" << num(x) << "\" y=\"" << num(f.height - f.bottom + 14)
        << "\" class=\"tick\" text-anchor=\"middle\">"
        << html_escape(x_bytes ? format_bytes(static_cast<std::uint64_t>(std::llround(t))) : tick_text(t)) << "</text>\n";
  }
  for (const double t : decade_ticks(std::pow(10.0, ys.lo), std::pow(10.0, ys.hi))) {
    const double y = ys(t);
    out << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(y) << "\" x2=\"" << num(f.width - f.right) << "\" y2=\"" << num(y)
        << "\" stroke=\"#eee\"/><text x=\"" << num(f.left - 4) << "\" y=\"" << num(y + 4) << "\" class=\"tick\" text-anchor=\"end\">"
        << tick_text(t) << "</text>\n";
  }
  out << "<text x=\"" << num((f.left + f.width - f.right) / 2) << "\" y=\"" << num(f.height - 16)
      << "\" text-anchor=\"middle\" class=\"axis\">" << html_escape(x_label) << "</text>\n"
      << "<text transform=\"translate(14 " << num((f.top + f.height - f.bottom) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\" class=\"axis\">" << html_escape(y_label) << "</text>\n";
}

bool positive(const std::pair<double, double>& p) {
  return p.first > 0 && p.second > 0 && std::isfinite(p.first) && std::isfinite(p.second);
}

// The drawable range of every series: [min, max] of x and y over positive points.
bool extent(const std::vector<ChartSeries>& series, double& x0, double& x1, double& y0, double& y1) {
  bool any = false;
  for (const auto& s : series) {
    for (const auto& p : s.points) {
      if (!positive(p)) continue;
      x0 = any ? std::min(x0, p.first) : p.first;
      x1 = any ? std::max(x1, p.first) : p.first;
      y0 = any ? std::min(y0, p.second) : p.second;
      y1 = any ? std::max(y1, p.second) : p.second;
      any = true;
    }
  }
  return any;
}

void legend(std::ostream& out, const std::vector<ChartSeries>& series) {
  out << "<ul class=\"legend\">";
  for (const auto& s : series)
    out << "<li><span class=\"swatch\" style=\"background:" << s.colour << "\"></span>" << html_escape(s.name) << "</li>";
  out << "</ul>\n";
}

// A tick or tooltip value on `axis`: sizes as "4 KiB", other values with three digits.
std::string value_text(const ChartAxis& axis, double v) {
  return axis.bytes ? format_bytes(static_cast<std::uint64_t>(std::llround(v))) : sig3(v);
}

struct LinearScale {
  double lo = 0, hi = 1, from = 0, to = 1;  // data range onto pixels
  double operator()(double v) const { return from + (v - lo) / (hi - lo) * (to - from); }
};

// 1, 2, 5 × 10^k steps over [lo, hi], about five of them.
std::vector<double> linear_ticks(double lo, double hi) {
  const double rough = (hi - lo) / 5, decade = std::pow(10.0, std::floor(std::log10(rough)));
  double step = decade;
  for (const double m : {2.0, 5.0, 10.0}) {
    if (step < rough) step = m * decade;
  }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi * 1.0001; v += step) t.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
  return t;
}

// Bars and ranges (Chart::Kind): one axis of categories, one linear value axis.
void category_chart_svg(std::ostream& out, const Chart& chart) {
  const bool bars = chart.kind == Chart::Kind::bars;
  const auto& categories = bars ? chart.y.categories : chart.x.categories;
  const ChartAxis& value = bars ? chart.x : chart.y;
  // Where each bar ends (bars: the stack so far), and the greatest value of all.
  std::vector<double> stack(categories.size(), 0.0);
  double top = std::isfinite(chart.reference) ? chart.reference : value.from;
  for (const auto& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      const auto c = static_cast<std::size_t>(std::lround(bars ? y : x));
      if (c < stack.size()) top = std::max(top, bars ? (stack[c] += x) : y);
    }
  }
  if (categories.empty() || !(top > value.from)) {
    out << "<p>no values to draw</p></figure>\n";
    return;
  }
  const double hi = value.from + (top - value.from) * 1.12, n = static_cast<double>(categories.size());
  const Frame f = bars ? Frame{640, 66 + 26 * n, 210, 14, 14, 52} : Frame{};
  const double plot_w = f.width - f.left - f.right, plot_h = f.height - f.top - f.bottom;
  const LinearScale vs =
      bars ? LinearScale{value.from, hi, f.left, f.width - f.right} : LinearScale{value.from, hi, f.height - f.bottom, f.top};
  const double band = (bars ? plot_h : plot_w) / n;  // one category's room
  const auto centre = [&](double c) { return (bars ? f.top : f.left) + (c + 0.5) * band; };
  out << "<svg id=\"" << html_escape(chart.id) << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(f.width) << "\" height=\""
      << num(f.height) << "\" data-kind=\"" << to_string(chart.kind) << "\">\n";
  out << "<rect x=\"" << num(f.left) << "\" y=\"" << num(f.top) << "\" width=\"" << num(plot_w) << "\" height=\"" << num(plot_h)
      << "\" fill=\"#fff\" stroke=\"#999\"/>\n";
  for (const double t : linear_ticks(value.from, hi)) {
    const double p = vs(t);
    if (bars) {
      out << "<line x1=\"" << num(p) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(p) << "\" y2=\"" << num(f.height - f.bottom)
          << "\" stroke=\"#eee\"/><text x=\"" << num(p) << "\" y=\"" << num(f.height - f.bottom + 14)
          << "\" class=\"tick\" text-anchor=\"middle\">" << tick_text(t) << "</text>\n";
    } else {
      out << "<line x1=\"" << num(f.left) << "\" y1=\"" << num(p) << "\" x2=\"" << num(f.width - f.right) << "\" y2=\"" << num(p)
          << "\" stroke=\"#eee\"/><text x=\"" << num(f.left - 4) << "\" y=\"" << num(p + 4) << "\" class=\"tick\" text-anchor=\"end\">"
          << tick_text(t) << "</text>\n";
    }
  }
  for (std::size_t c = 0; c < categories.size(); ++c) {
    const double m = centre(static_cast<double>(c));
    if (bars) {
      out << "<text x=\"" << num(f.left - 4) << "\" y=\"" << num(m + 4) << "\" class=\"tick\" text-anchor=\"end\">"
          << html_escape(categories[c]) << "</text>\n";
    } else {
      out << "<text x=\"" << num(m) << "\" y=\"" << num(f.height - f.bottom + 14) << "\" class=\"tick\" text-anchor=\"middle\">"
          << html_escape(categories[c]) << "</text>\n";
    }
  }
  out << "<text x=\"" << num((f.left + f.width - f.right) / 2) << "\" y=\"" << num(f.height - 16)
      << "\" text-anchor=\"middle\" class=\"axis\">" << html_escape(chart.x.label) << "</text>\n"
      << "<text transform=\"translate(14 " << num((f.top + f.height - f.bottom) / 2)
      << ") rotate(-90)\" text-anchor=\"middle\" class=\"axis\">" << html_escape(chart.y.label) << "</text>\n";
  if (bars) {
    std::fill(stack.begin(), stack.end(), 0.0);  // bars start at 0; the axis may start later
    for (const auto& s : chart.series) {
      for (std::size_t i = 0; i < s.points.size(); ++i) {
        const auto [v, cat] = s.points[i];
        const auto c = static_cast<std::size_t>(std::lround(cat));
        if (c >= stack.size()) continue;
        const double x0 = vs(std::max(stack[c], value.from)), x1 = vs(stack[c] += v);
        out << "<rect x=\"" << num(x0) << "\" y=\"" << num(centre(cat) - band * 0.4) << "\" width=\"" << num(std::max(x1 - x0, 0.0))
            << "\" height=\"" << num(band * 0.8) << "\" fill=\"" << s.colour << "\"><title>" << html_escape(categories[c] + ": " + s.name)
            << " " << sig3(v) << "</title></rect>";
        if (i < s.notes.size()) {
          out << "<text x=\"" << num(x1 + 4) << "\" y=\"" << num(centre(cat) + 4) << "\" class=\"tick\">" << html_escape(s.notes[i])
              << "</text>";
        }
      }
      out << "\n";
    }
    if (std::isfinite(chart.reference)) {
      out << "<line x1=\"" << num(vs(chart.reference)) << "\" y1=\"" << num(f.top) << "\" x2=\"" << num(vs(chart.reference)) << "\" y2=\""
          << num(f.height - f.bottom) << "\" stroke=\"#000\"/>\n";
    }
  } else {
    std::vector<double> least(categories.size(), top), most(categories.size(), value.from);
    for (const auto& s : chart.series) {
      for (const auto& [cat, v] : s.points) {
        const auto c = static_cast<std::size_t>(std::lround(cat));
        if (c >= least.size()) continue;
        least[c] = std::min(least[c], v);
        most[c] = std::max(most[c], v);
      }
    }
    for (std::size_t c = 0; c < categories.size(); ++c) {
      if (most[c] < least[c]) continue;
      const double m = centre(static_cast<double>(c));
      out << "<line x1=\"" << num(m) << "\" y1=\"" << num(vs(least[c])) << "\" x2=\"" << num(m) << "\" y2=\"" << num(vs(most[c]))
          << "\" stroke=\"#888\"/>\n";
    }
    for (std::size_t k = 0; k < chart.series.size(); ++k) {
      const auto& s = chart.series[k];
      for (std::size_t i = 0; i < s.points.size(); ++i) {
        const auto [cat, v] = s.points[i];
        const double cx = centre(cat), cy = vs(v);
        out << "<circle cx=\"" << num(cx) << "\" cy=\"" << num(cy) << "\" r=\"" << (k == 0 ? "3" : "4.5") << "\" fill=\"" << s.colour
            << "\"><title>" << html_escape(s.name) << ": " << sig3(v) << "</title></circle>";
        if (i < s.notes.size()) {
          // Neighbours' notes alternate above and below their dot, as long host names would collide.
          out << "<text x=\"" << num(cx + 6) << "\" y=\"" << num(cy + (std::lround(cat) % 2 == 0 ? -4 : 12)) << "\" class=\"cellnote\">"
              << html_escape(s.notes[i]) << "</text>";
        }
      }
      out << "\n";
    }
  }
  out << "</svg>";
  if (chart.series.size() > 1) legend(out, chart.series);
  out << "</figure>\n";
}

// Cells (Chart::Kind::cells): the column and row names around the grid, the curves, then the
// cells over them, and the key of the curves' strokes under the grid.
void cells_svg(std::ostream& out, const Chart& chart) {
  using G = CellsGeometry;
  const auto columns = static_cast<double>(chart.x.categories.size()), rows = static_cast<double>(chart.y.categories.size());
  const double width = G::left + columns * (G::cell_w + G::gap_x) + 8;
  const double height = G::top + rows * (G::cell_h + G::gap_y) - G::gap_y + 26;
  out << "<svg id=\"" << html_escape(chart.id) << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\""
      << num(height) << "\" viewBox=\"0 0 " << num(width) << " " << num(height) << "\" data-kind=\"" << to_string(chart.kind) << "\">\n";
  for (std::size_t c = 0; c < chart.x.categories.size(); ++c) {
    out << "<text x=\"" << num(G::left + static_cast<double>(c) * (G::cell_w + G::gap_x) + G::cell_w / 2.0)
        << "\" y=\"12\" class=\"tick\" text-anchor=\"middle\">" << html_escape(chart.x.categories[c]) << "</text>\n";
  }
  for (std::size_t r = 0; r < chart.y.categories.size(); ++r) {
    // The left margin holds about 13 characters: a longer name keeps its tail (where cluster
    // names differ: node-017) and the full name in the tooltip.
    const std::string& name = chart.y.categories[r];
    const std::string shown = name.size() > 13 ? "…" + name.substr(name.size() - 12) : name;
    out << "<text x=\"" << (G::left - 8) << "\" y=\"" << num(G::top + static_cast<double>(r) * (G::cell_h + G::gap_y) + G::cell_h / 2.0 + 4)
        << "\" class=\"host\" text-anchor=\"end\">" << html_escape(shown) << "<title>" << html_escape(name) << "</title></text>\n";
  }
  for (const auto& curve : chart.curves) curve_path(out, chart, curve);
  // Every series' cells counted row by row: cell k's id is ID-sk.
  struct Placed {
    std::pair<double, double> at;
    std::size_t series, point;
  };
  std::vector<Placed> cells;
  for (std::size_t k = 0; k < chart.series.size(); ++k) {
    for (std::size_t i = 0; i < chart.series[k].points.size(); ++i) cells.push_back({chart.series[k].points[i], k, i});
  }
  std::stable_sort(cells.begin(), cells.end(), [](const Placed& a, const Placed& b) {
    return std::pair{a.at.second, a.at.first} < std::pair{b.at.second, b.at.first};
  });
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const auto& s = chart.series[cells[k].series];
    const std::string note = cells[k].point < s.notes.size() ? s.notes[cells[k].point] : "";
    const Cell c = cell_at(cells[k].at);
    out << "<g class=\"cell\" data-series=\"" << cells[k].series << "\"><rect id=\"" << html_escape(chart.id) << "-s" << k << "\" x=\""
        << num(c.x) << "\" y=\"" << num(c.y) << "\" width=\"" << G::cell_w << "\" height=\"" << G::cell_h << "\" rx=\"4\" fill=\""
        << s.colour << "\"/>";
    if (!note.empty()) {
      out << "<text x=\"" << num(c.x + G::cell_w / 2.0) << "\" y=\"" << num(c.y + G::cell_h / 2.0 + 4)
          << "\" class=\"rank\" text-anchor=\"middle\">" << html_escape(note) << "</text>";
    }
    out << "<title>" << html_escape(cell_name(chart, cells[k].at) + ": " + s.name + (note.empty() ? "" : ", " + note)) << "</title></g>\n";
  }
  double x = G::left;
  const double y = height - 10;
  for (const auto& stroke : chart.key) {
    out << "<line x1=\"" << num(x) << "\" y1=\"" << num(y - 4) << "\" x2=\"" << num(x + 30) << "\" y2=\"" << num(y - 4)
        << "\" stroke=\"#444\" stroke-width=\"" << num(stroke.width) << "\"" << dash_attr(stroke.dash) << "/><text x=\"" << num(x + 34)
        << "\" y=\"" << num(y) << "\" class=\"tick\">" << html_escape(stroke.name) << "</text>\n";
    x += 80;
  }
  out << "</svg></figure>\n";
}

}  // namespace

void link_matrix_svg(std::ostream& out, const SlotGrid& grid) {
  const double cell = grid.slots <= 16 ? 28 : (grid.slots <= 48 ? 14 : 6), left = 44, top = 30;
  const double side = cell * grid.slots;
  out << "<svg id=\"link-matrix\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(left + side + 8) << "\" height=\""
      << num(top + side + 8) << "\">\n";
  for (int a = 0; a < grid.slots; ++a) {
    for (int b = 0; b < grid.slots; ++b) {
      const auto& l = grid.links[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)];
      out << "<rect x=\"" << num(left + b * cell) << "\" y=\"" << num(top + a * cell) << "\" width=\"" << num(cell) << "\" height=\""
          << num(cell) << "\" fill=\"" << link_colour(l) << "\"><title>slot " << a << " – slot " << b << ": " << html_escape(l)
          << "</title></rect>";
      if (cell >= 28) {
        out << "<text x=\"" << num(left + b * cell + cell / 2) << "\" y=\"" << num(top + a * cell + cell / 2 + 3)
            << "\" class=\"cellnote\" text-anchor=\"middle\"" << (l == "LOC" || l == "NVL" || l == "NVB" ? " fill=\"#fff\"" : "") << ">"
            << html_escape(l) << "</text>";
      }
    }
    out << "\n";
  }
  // Slot numbers (every one when they fit) and the node boundaries.
  const int every = cell >= 14 ? 1 : 8;
  for (int s = 0; s < grid.slots; s += every) {
    out << "<text x=\"" << num(left + s * cell + cell / 2) << "\" y=\"" << num(top - 6) << "\" class=\"tick\" text-anchor=\"middle\">" << s
        << "</text><text x=\"" << num(left - 6) << "\" y=\"" << num(top + s * cell + cell / 2 + 4)
        << "\" class=\"tick\" text-anchor=\"end\">" << s << "</text>\n";
  }
  for (std::size_t n = 1; n < grid.first_slot.size(); ++n) {
    const double p = grid.first_slot[n] * cell;
    out << "<line x1=\"" << num(left + p) << "\" y1=\"" << num(top) << "\" x2=\"" << num(left + p) << "\" y2=\"" << num(top + side)
        << "\" stroke=\"#000\"/><line x1=\"" << num(left) << "\" y1=\"" << num(top + p) << "\" x2=\"" << num(left + side) << "\" y2=\""
        << num(top + p) << "\" stroke=\"#000\"/>\n";
  }
  out << "</svg>\n";
}

namespace {

// Sizes on a bytes axis: the points' own, at most about eight; else the decades.
std::vector<double> x_ticks(const Chart& chart, double x0, double x1) {
  if (!chart.x.bytes) return decade_ticks(x0, x1);
  std::vector<double> sizes;
  for (const auto& s : chart.series) {
    for (const auto& p : s.points) {
      if (positive(p) && std::find(sizes.begin(), sizes.end(), p.first) == sizes.end()) sizes.push_back(p.first);
    }
  }
  std::sort(sizes.begin(), sizes.end());
  const std::size_t step = std::max<std::size_t>((sizes.size() + 7) / 8, 1);
  std::vector<double> shown;
  for (std::size_t i = 0; i < sizes.size(); i += step) shown.push_back(sizes[i]);
  return shown;
}

}  // namespace

void chart_svg(std::ostream& out, const Chart& chart) {
  out << "<figure class=\"chart\"><figcaption>" << html_escape(chart.title) << "</figcaption>";
  if (chart.kind == Chart::Kind::bars || chart.kind == Chart::Kind::ranges) {
    category_chart_svg(out, chart);
    return;
  }
  if (chart.kind == Chart::Kind::cells) {
    cells_svg(out, chart);
    return;
  }
  double x0 = 1, x1 = 1, y0 = 1, y1 = 1;
  if (!extent(chart.series, x0, x1, y0, y1)) {
    out << "<p>no positive values to draw</p></figure>\n";
    return;
  }
  if (chart.diagonal) {  // one scale on both axes, so that y = x is the diagonal
    x0 = y0 = std::min(x0, y0) / 1.3;
    x1 = y1 = std::max(x1, y1) * 1.3;
  } else {
    y0 /= 1.2;
    y1 *= 1.2;
  }
  const Frame f = chart.diagonal ? Frame{420, 360, 62, 14, 14, 52} : Frame{};
  const double pad = chart.diagonal ? 0 : 6;
  const LogScale xs(x0, x1, f.left + pad, f.width - f.right - pad), ys(y0, y1, f.height - f.bottom, f.top);
  const std::vector<double> xticks = x_ticks(chart, x0, x1);
  out << "<svg id=\"" << html_escape(chart.id) << "\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(f.width) << "\" height=\""
      << num(f.height) << "\" data-kind=\"" << to_string(chart.kind) << "\">\n";
  axes(out, f, xs, ys, xticks, chart.x.bytes, chart.x.label, chart.y.label);
  if (chart.diagonal) {
    out << "<line x1=\"" << num(xs(x0)) << "\" y1=\"" << num(ys(x0)) << "\" x2=\"" << num(xs(x1)) << "\" y2=\"" << num(ys(x1))
        << "\" stroke=\"#888\" stroke-dasharray=\"4 3\"><title>" << html_escape(chart.y.label + " = " + chart.x.label)
        << "</title></line>\n";
  }
  const bool lines = chart.kind == Chart::Kind::lines;
  struct DotNote {
    double y, x;
    std::string text;
  };
  std::vector<DotNote> notes;  // drawn at their dots' right once every dot is placed
  for (const auto& s : chart.series) {
    if (lines) {
      std::string points;
      for (const auto& p : s.points) {
        if (positive(p)) points += num(xs(p.first)) + "," + num(ys(p.second)) + " ";
      }
      out << "<polyline points=\"" << points << "\" fill=\"none\" stroke=\"" << s.colour << "\" stroke-width=\"2\"><title>"
          << html_escape(s.name) << "</title></polyline>\n";
    }
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      const auto& p = s.points[i];
      if (!positive(p)) continue;
      if (i < s.notes.size()) notes.push_back({ys(p.second), xs(p.first) + 6, s.notes[i]});
      out << "<circle cx=\"" << num(xs(p.first)) << "\" cy=\"" << num(ys(p.second)) << "\" r=\"" << (lines ? "2.5" : "3") << "\" fill=\""
          << s.colour << "\"" << (lines ? "" : " fill-opacity=\"0.6\"") << "><title>" << html_escape(s.name) << ": "
          << html_escape(chart.y.label) << " " << value_text(chart.y, p.second) << ", " << html_escape(chart.x.label) << " "
          << value_text(chart.x, p.first) << "</title></circle>";
    }
    out << "\n";
  }
  // Top to bottom, each note at least a line below the one before: mappings the model predicts
  // nearly equal must not print their names over each other.
  std::sort(notes.begin(), notes.end(), [](const DotNote& a, const DotNote& b) { return a.y < b.y; });
  double previous = -1e9;
  for (const auto& n : notes) {
    previous = std::max(n.y - 4, previous + 11);
    out << "<text x=\"" << num(n.x) << "\" y=\"" << num(previous) << "\" class=\"tick\">" << html_escape(n.text) << "</text>\n";
  }
  out << "</svg>";
  legend(out, chart.series);
  out << "</figure>\n";
}

}  // namespace meshbench::analysis::detail
