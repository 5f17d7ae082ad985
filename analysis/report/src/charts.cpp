#include "analysis/report/charts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "analysis/report/placement.hpp"
#include "analysis/report/src/report_tables.hpp"
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
    if (c.timing == r.ranking.timing && c.concurrency == "concurrent" && !c.points.empty())
      by_op[{dim_order(c.dim), op_order(c.op), c.dim, c.op}].push_back(&c);
  }
  int index = 0;
  for (auto& [key, curves] : by_op) {
    const std::string& dim = std::get<2>(key);
    if (out.empty() || out.back().file_name != "busbw_" + dim + ".png") {
      out.push_back(
          {"busbw_" + dim + ".png", dim + ": busbw against size, " + r.ranking.timing + " concurrent medians, one line per mapping", {}});
    }
    std::stable_sort(curves.begin(), curves.end(),
                     [&](const Curve* a, const Curve* b) { return rank_of(r, a->mapping) < rank_of(r, b->mapping); });
    Chart chart{"busbw-" + std::to_string(index++),
                dim + " " + std::get<3>(key) + " (groups of " + std::to_string(curves.front()->group_size) + ")",
                Chart::Kind::lines,
                {"message size (nccl-tests convention)", true},
                {"busbw (GB/s)", false},
                false,
                {}};
    for (std::size_t i = 0; i < curves.size(); ++i) {
      // A mapping keeps one colour in every chart: its rank's (unranked ones after the ranked).
      const int rank = rank_of(r, curves[i]->mapping);
      const bool ranked = rank < (1 << 20);
      const int colour = ranked ? rank - 1 : static_cast<int>(r.ranking.mappings.size() + i);
      ChartSeries s{(ranked ? "#" + std::to_string(rank) + " " : std::string()) + curves[i]->mapping, group_colour(colour), {}};
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

nlohmann::json axis_json(const ChartAxis& a) { return {{"label", a.label}, {"bytes", a.bytes}}; }

}  // namespace

std::vector<ChartFigure> describe_charts(const Report& report) {
  std::vector<ChartFigure> figures;
  busbw_figures(report, figures);
  accuracy_figure(report, figures);
  return figures;
}

const char* to_string(Chart::Kind kind) { return kind == Chart::Kind::lines ? "lines" : "points"; }

nlohmann::json charts_to_json(const std::vector<ChartFigure>& figures) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : figures) {
    nlohmann::json panels = nlohmann::json::array();
    for (const auto& c : f.panels) {
      nlohmann::json series = nlohmann::json::array();
      for (const auto& s : c.series) {
        nlohmann::json points = nlohmann::json::array();
        for (const auto& [x, y] : s.points) points.push_back({x, y});
        series.push_back({{"name", s.name}, {"colour", s.colour}, {"points", std::move(points)}});
      }
      panels.push_back({{"id", c.id},
                        {"title", c.title},
                        {"kind", to_string(c.kind)},
                        {"x", axis_json(c.x)},
                        {"y", axis_json(c.y)},
                        {"diagonal", c.diagonal},
                        {"series", std::move(series)}});
    }
    out.push_back({{"file_name", f.file_name}, {"title", f.title}, {"panels", std::move(panels)}});
  }
  return out;
}

}  // namespace meshbench::analysis
