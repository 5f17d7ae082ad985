#include "analysis/report/charts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "analysis/report/placement.hpp"
#include "analysis/report/src/report_tables.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

using detail::dim_order;
using detail::op_order;
using detail::rank_of;

void add_drawable(ChartSeries& s, double x, double y) {
  if (x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y)) s.points.emplace_back(x, y);
}

void busbw_figures(const Report& r, std::vector<ChartFigure>& out) {
  std::map<std::tuple<int, int, std::string, std::string>, std::vector<const Curve*>> by_op;
  for (const auto& c : r.curves) {
    const auto& k = c.key;
    if (k.timing == r.ranking.timing && k.concurrency == "concurrent" && !c.points.empty())
      by_op[{dim_order(k.dim), op_order(k.op), k.dim, k.op}].push_back(&c);
  }
  int index = 0;
  for (auto& [key, curves] : by_op) {
    const std::string& dim = std::get<2>(key);
    if (out.empty() || out.back().file_name != "busbw_" + dim + ".png") {
      out.push_back(
          {"busbw_" + dim + ".png", dim + ": busbw against size, " + r.ranking.timing + " concurrent medians, one line per mapping", {}});
    }
    std::stable_sort(curves.begin(), curves.end(),
                     [&](const Curve* a, const Curve* b) { return rank_of(r, a->key.mapping) < rank_of(r, b->key.mapping); });
    Chart chart{"busbw-" + std::to_string(index++),
                dim + " " + std::get<3>(key) + " (groups of " + std::to_string(curves.front()->group_size) + ")",
                Chart::Kind::lines,
                {"message size (nccl-tests convention)", true},
                {"busbw (GB/s)", false},
                false,
                {}};
    for (std::size_t i = 0; i < curves.size(); ++i) {
      // A mapping keeps one colour in every chart: its rank's (unranked ones after the ranked).
      const int rank = rank_of(r, curves[i]->key.mapping);
      const bool ranked = rank < (1 << 20);
      const int colour = ranked ? rank - 1 : static_cast<int>(r.ranking.mappings.size() + i);
      ChartSeries s{(ranked ? "#" + std::to_string(rank) + " " : std::string()) + curves[i]->key.mapping, group_colour(colour), {}};
      for (const auto& pt : curves[i]->points) add_drawable(s, static_cast<double>(pt.bytes), pt.busbw_gbps);
      chart.series.push_back(std::move(s));
    }
    out.back().panels.push_back(std::move(chart));
  }
}

// A predictor keeps its colour whatever else is judged beside it.
std::string predictor_colour(const std::string& name, std::size_t index) {
  if (name == "uncalibrated") return "#ff7f0e";
  if (name == "calibrated") return "#1f77b4";
  if (name == "cost-model") return "#2ca02c";
  return group_colour(static_cast<int>(index) + 3);
}

std::string percent_or_dash(double v, int digits) { return std::isfinite(v) ? fixed(100 * v, digits) + "%" : "-"; }

void accuracy_figure(const Report& r, std::vector<ChartFigure>& out) {
  if (!r.accuracy || r.accuracy->predictors.empty()) return;
  const auto& a = *r.accuracy;
  ChartFigure fig{"predicted_vs_measured.png", "cost model against measurement (gray: measured = predicted)", {}};
  Chart points{"accuracy-points",
               "per point (dimension, op, size, concurrency)",
               Chart::Kind::points,
               {"predicted (µs)", false},
               {"measured median (µs, " + a.timing + ")", false},
               true,
               {}};
  Chart totals{"accuracy-mappings",
               std::string("per mapping: ") + (a.per_step ? "time per step" : "sum over the common points"),
               Chart::Kind::points,
               {"predicted (µs)", false},
               {"measured (µs)", false},
               true,
               {}};
  for (std::size_t i = 0; i < a.predictors.size(); ++i) {
    const auto& p = a.predictors[i];
    const std::string colour = predictor_colour(p.name, i);
    const double med = p.large.median_rel_error;
    ChartSeries each{p.name + (std::isfinite(med) ? ", median error ≥ 64 KiB " + fixed(100 * med, 0) + "%" : ""), colour, {}};
    for (const auto& pt : p.points) add_drawable(each, pt.predicted_us, pt.measured_us);
    points.series.push_back(std::move(each));
    const double rho = p.order.spearman;
    ChartSeries total{
        p.name + ": Spearman " + (std::isfinite(rho) ? fixed(rho, 2) : std::string("-")) + ", regret " + percent_or_dash(p.order.regret, 1),
        colour,
        {}};
    for (const auto& t : p.totals) {
      if (t.dim == "step") add_drawable(total, t.predicted_us, t.measured_us);
    }
    totals.series.push_back(std::move(total));
  }
  const auto empty = [](const Chart& c) {
    return std::all_of(c.series.begin(), c.series.end(), [](const ChartSeries& s) { return s.points.empty(); });
  };
  if (empty(points) && empty(totals)) return;
  fig.panels.push_back(std::move(points));
  fig.panels.push_back(std::move(totals));
  out.push_back(std::move(fig));
}

std::string printed(const char* format, double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Without an accuracy section, the plan's step predictions against the ranking's measurement:
// a dot per mapping noted with its measured place, on the diagonal when they compare directly.
void plan_predictions_figure(const Report& r, std::vector<ChartFigure>& out) {
  if (!r.predictions) return;
  const PredictionCheck& p = *r.predictions;
  const double rho = p.rank_correlation;
  const std::string rho_text = std::isfinite(rho) ? "Spearman " + fixed(rho, 2) : std::string("the plan predicts every mapping equal");
  Chart c{"plan-predictions",
          "plan against measurement: " + rho_text + " (" + std::to_string(p.compared_mappings) + " mappings)",
          Chart::Kind::points,
          {"predicted by the plan (µs)", false},
          {p.like_for_like ? "measured per step (µs)" : "measured (" + r.ranking.unit() + "): only the order compares", false},
          p.like_for_like,
          {}};
  ChartSeries mappings{"mappings", "#1f77b4", {}};
  for (const auto& row : p.rows) {
    if (row.dim != "step" || !(row.measured > 0) || !(row.predicted_us > 0)) continue;
    const std::size_t drawn = mappings.points.size();
    add_drawable(mappings, row.predicted_us, row.measured);
    if (mappings.points.size() > drawn) mappings.notes.push_back("#" + printed("%g", row.measured_rank) + " " + row.mapping);
  }
  if (mappings.points.empty()) return;
  c.series.push_back(std::move(mappings));
  out.push_back({"predicted_vs_measured.png", "", {std::move(c)}});
}

void ranking_figure(const Report& r, std::vector<ChartFigure>& out) {
  const auto& k = r.ranking;
  if (k.mappings.empty()) return;
  const bool workload = k.basis == Ranking::Basis::workload;
  Chart c{"ranking-chart", "", Chart::Kind::bars, {}, {}, false, {}};
  for (const auto& m : k.mappings) c.y.categories.push_back("#" + std::to_string(m.rank) + " " + m.name);
  const auto category = [](std::size_t i) { return static_cast<double>(i); };
  if (workload) {
    double top = 0;
    for (const auto& m : k.mappings) top = std::max(top, m.score);
    const auto [unit, div] = top >= 1e6 ? std::pair{"s", 1e6} : (top >= 1e3 ? std::pair{"ms", 1e3} : std::pair{"us", 1.0});
    std::vector<double> totals(k.mappings.size(), 0.0);
    for (std::size_t d = 0; d < k.dims.size(); ++d) {
      ChartSeries s{k.dims[d], group_colour(static_cast<int>(d)), {}, {}};
      for (std::size_t i = 0; i < k.mappings.size(); ++i) {
        double v = 0;
        for (const auto& score : k.mappings[i].dims) {
          if (score.dim == k.dims[d] && std::isfinite(score.value)) v = score.value / div;
        }
        s.points.emplace_back(v, category(i));
        totals[i] += v;
      }
      c.series.push_back(std::move(s));
    }
    if (!c.series.empty()) {
      for (const double t : totals) c.series.back().notes.push_back(printed("%.3g", t));
    }
    c.x.label = std::string("estimated communication per step (") + unit + "), stacked by dimension";
    c.title = "ranking for workload '" + (k.workload_name.empty() ? std::string("unnamed") : k.workload_name) + "'";
  } else {
    ChartSeries s{"time / fastest mapping's time", "#1f77b4", {}, {}};
    double least = 1;
    for (std::size_t i = 0; i < k.mappings.size(); ++i) {
      s.points.emplace_back(k.mappings[i].score, category(i));
      s.notes.push_back(printed("%.3f", k.mappings[i].score));
      least = std::min(least, k.mappings[i].score);
    }
    c.series.push_back(std::move(s));
    c.reference = 1;
    c.x.from = std::min(0.9, least * 0.95);
    c.x.label = "geometric mean of time / fastest mapping's time (1 = fastest everywhere)";
    c.title = "ranking without a workload";
  }
  c.title += " (" + k.timing + " concurrent medians)";
  out.push_back({"ranking.png", "", {std::move(c)}, 0});
}

void spread_figure(const Report& r, std::vector<ChartFigure>& out) {
  std::map<std::tuple<int, int, std::string, std::string>, std::vector<const GroupSpread*>> by_op;
  for (const auto& s : r.largest_spreads) {
    const auto& p = s.point;
    if (p.timing == r.ranking.timing && p.concurrency == "concurrent") by_op[{dim_order(p.dim), op_order(p.op), p.dim, p.op}].push_back(&s);
  }
  if (by_op.empty()) return;
  ChartFigure fig{"group_spread.png",
                  "spread across groups at the largest size: each dot a group's median, red the slowest (its hosts beside it)",
                  {},
                  3};
  for (auto& [key, spreads] : by_op) {
    std::stable_sort(spreads.begin(), spreads.end(), [&](const GroupSpread* a, const GroupSpread* b) {
      return rank_of(r, a->point.mapping) < rank_of(r, b->point.mapping);
    });
    Chart c{"spread-" + std::to_string(fig.panels.size()),
            std::get<2>(key) + " " + std::get<3>(key) + " at " + format_bytes(spreads.front()->point.bytes),
            Chart::Kind::ranges,
            {},
            {"group median (µs)", false, {}, 0},
            false,
            {}};
    ChartSeries groups{"a group's median", "#1f77b4", {}, {}}, slowest{"the slowest group's", "#d62728", {}, {}};
    for (std::size_t i = 0; i < spreads.size(); ++i) {
      const auto& s = *spreads[i];
      const std::string rank = detail::rank_label(r, s.point.mapping);
      c.x.categories.push_back(rank.empty() ? "#?" : rank);
      for (const double v : s.group_us) {
        if (v > 0 && std::isfinite(v)) groups.points.emplace_back(static_cast<double>(i), v);
      }
      if (!std::isfinite(s.max_us)) continue;
      slowest.points.emplace_back(static_cast<double>(i), s.max_us);
      const std::vector<std::string> hosts(s.slowest_hosts.begin(),
                                           s.slowest_hosts.begin() + std::min<std::ptrdiff_t>(2, std::ssize(s.slowest_hosts)));
      slowest.notes.push_back("g" + std::to_string(s.slowest_group) + " " + join(hosts, ",") + (s.slowest_hosts.size() > 2 ? "…" : ""));
    }
    c.series = {std::move(groups), std::move(slowest)};
    fig.panels.push_back(std::move(c));
  }
  out.push_back(std::move(fig));
}

// How a hop over `link` is stroked: the hops between nodes, the slowest links, wider.
ChartStroke stroke_of(const std::string& link) { return {link, link_dash(link), link == "NET" ? 3.0 : 2.5}; }

void placement_figure(const Report& r, std::vector<ChartFigure>& out) {
  if (!r.placement) return;
  constexpr std::size_t kMappings = 4;  // the best few: a page of pictures, not a poster
  ChartFigure fig{"placement.png", "", {}, 0};
  for (std::size_t k = 0; k < r.placement->mappings.size() && fig.rows.size() < kMappings; ++k) {
    auto charts = placement_charts(*r.placement, k);
    if (charts.empty()) continue;
    const auto& m = r.placement->mappings[k];
    fig.rows.push_back({(m.rank > 0 ? "#" + std::to_string(m.rank) + " " : std::string()) + m.mapping, static_cast<int>(charts.size())});
    fig.columns = std::max(fig.columns, static_cast<int>(charts.size()));
    for (auto& c : charts) fig.panels.push_back(std::move(c));
  }
  if (!fig.panels.empty()) out.push_back(std::move(fig));
}

nlohmann::json axis_json(const ChartAxis& a) {
  return {{"label", a.label}, {"bytes", a.bytes}, {"categories", a.categories}, {"from", a.from}};
}

}  // namespace

std::vector<ChartFigure> describe_charts(const Report& report) {
  std::vector<ChartFigure> figures;
  ranking_figure(report, figures);
  placement_figure(report, figures);
  busbw_figures(report, figures);
  const auto before = figures.size();
  accuracy_figure(report, figures);
  if (figures.size() == before) plan_predictions_figure(report, figures);
  spread_figure(report, figures);
  return figures;
}

std::vector<Chart> placement_charts(const Placements& placements, std::size_t mapping) {
  const SlotGrid& grid = placements.grid;
  const MappingPlacement& m = placements.mappings.at(mapping);
  // Slot s's cell: (its place among its node's slots, its node).
  std::vector<std::pair<double, double>> cell(static_cast<std::size_t>(grid.slots));
  ChartAxis columns{"", false, {}, 0}, rows{"", false, grid.hosts, 0};
  for (std::size_t n = 0; n < grid.hosts.size(); ++n) {
    for (int i = 0; i < grid.slot_count[n]; ++i) {
      cell[static_cast<std::size_t>(grid.first_slot[n] + i)] = {static_cast<double>(i), static_cast<double>(n)};
      if (i >= static_cast<int>(columns.categories.size())) columns.categories.push_back("slot " + std::to_string(i));
    }
  }
  const auto cell_of = [&](int slot) { return cell[static_cast<std::size_t>(slot)]; };
  std::vector<Chart> charts;
  for (const auto& d : m.dims) {
    const std::size_t members = d.groups.empty() ? 0 : d.groups.front().ranks.size();
    Chart c{
        "placement-" + std::to_string(mapping) + "-" + d.dim,
        d.dim + ": " + std::to_string(d.groups.size()) + (d.groups.size() == 1 ? " group" : " groups") + " of " + std::to_string(members),
        Chart::Kind::cells,
        columns,
        rows,
        false,
        {}};
    std::set<std::string> crossed;
    for (std::size_t g = 0; g < d.groups.size(); ++g) {
      const auto& group = d.groups[g];
      ChartSeries s{d.dim + " group " + std::to_string(g), group_colour(static_cast<int>(g)), {}, {}};
      for (std::size_t i = 0; i < group.slots.size() && i < group.ranks.size(); ++i) {
        s.points.push_back(cell_of(group.slots[i]));
        s.notes.push_back("r" + std::to_string(group.ranks[i]));
      }
      for (const auto& hop : group.hops) {
        c.curves.push_back({cell_of(hop.from_slot), cell_of(hop.to_slot), s.colour, stroke_of(hop.link)});
        crossed.insert(hop.link);
      }
      c.series.push_back(std::move(s));
    }
    ChartSeries unused{"no rank", "#e6e6e6", {}, {}};
    for (int slot = 0; slot < grid.slots; ++slot) {
      if (d.group_of_slot[static_cast<std::size_t>(slot)] < 0) unused.points.push_back(cell_of(slot));
    }
    if (!unused.points.empty()) c.series.push_back(std::move(unused));
    for (const auto& link : grid.classes) {
      if (crossed.contains(link)) c.key.push_back(stroke_of(link));
    }
    charts.push_back(std::move(c));
  }
  return charts;
}

const char* to_string(Chart::Kind kind) {
  switch (kind) {
    case Chart::Kind::lines: return "lines";
    case Chart::Kind::points: return "points";
    case Chart::Kind::bars: return "bars";
    case Chart::Kind::ranges: return "ranges";
    case Chart::Kind::cells: return "cells";
  }
  return "lines";
}

nlohmann::json charts_to_json(const std::vector<ChartFigure>& figures) {
  const auto stroke_json = [](const ChartStroke& s) { return nlohmann::json{{"name", s.name}, {"dash", s.dash}, {"width", s.width}}; };
  const auto cell_json = [](const std::pair<double, double>& p) { return nlohmann::json::array({p.first, p.second}); };
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : figures) {
    nlohmann::json panels = nlohmann::json::array();
    for (const auto& c : f.panels) {
      nlohmann::json series = nlohmann::json::array();
      for (const auto& s : c.series) {
        nlohmann::json points = nlohmann::json::array();
        for (const auto& [x, y] : s.points) points.push_back({x, y});
        series.push_back({{"name", s.name}, {"colour", s.colour}, {"points", std::move(points)}, {"notes", s.notes}});
      }
      nlohmann::json curves = nlohmann::json::array(), key = nlohmann::json::array();
      for (const auto& k : c.curves) {
        curves.push_back({{"from", cell_json(k.from)}, {"to", cell_json(k.to)}, {"colour", k.colour}, {"stroke", stroke_json(k.stroke)}});
      }
      for (const auto& k : c.key) key.push_back(stroke_json(k));
      panels.push_back({{"id", c.id},
                        {"title", c.title},
                        {"kind", to_string(c.kind)},
                        {"x", axis_json(c.x)},
                        {"y", axis_json(c.y)},
                        {"diagonal", c.diagonal},
                        {"reference", std::isfinite(c.reference) ? nlohmann::json(c.reference) : nlohmann::json(nullptr)},
                        {"series", std::move(series)},
                        {"curves", std::move(curves)},
                        {"key", std::move(key)}});
    }
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : f.rows) rows.push_back({{"label", row.label}, {"panels", row.panels}});
    out.push_back(
        {{"file_name", f.file_name}, {"title", f.title}, {"columns", f.columns}, {"rows", std::move(rows)}, {"panels", std::move(panels)}});
  }
  return out;
}

}  // namespace meshbench::analysis
