// The report as one self-contained HTML page: styles, pictures (inline SVG) and its one small
// script inside, nothing fetched, so that it can be attached to a ticket and opened offline.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

#include "analysis/report/charts.hpp"
#include "analysis/report/report_writers.hpp"
#include "analysis/report/src/html_svg.hpp"
#include "analysis/report/src/report_tables.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

using namespace detail;

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0 auto;max-width:1240px;padding:12px 24px;color:#222;background:#fff}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:2px solid #ddd;padding-bottom:3px}h3{font-size:15px;margin:18px 0 6px}
nav a{margin-right:14px}table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}th,td{border:1px solid #ddd;padding:3px 7px;text-align:left}
th{background:#f4f4f4}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}tbody tr:nth-child(even){background:#fafafa}
pre{background:#f6f8fa;border:1px solid #e1e4e8;padding:8px;overflow-x:auto;font-size:12.5px}
.meta{color:#555}.warn{background:#fff3f3;border:1px solid #e99;padding:6px 10px}
.dims{display:flex;flex-wrap:wrap;gap:18px}.chart{display:inline-block}.dims .dim,.chart{margin:0 0 12px;border:1px solid #e4e4e4;padding:6px;background:#fff}.dim .chart{border:0;padding:0;margin:0}
figcaption{font-size:12.5px;max-width:640px}.groups{list-style:none;padding:0;margin:4px 0}.groups li{margin:1px 0}
.swatch{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border-radius:2px}
.badge{display:inline-block;font-size:11px;padding:0 5px;margin-left:4px;border-radius:8px;color:#000;border:1px solid #888}
.legend{list-style:none;padding:0;margin:2px 0;font-size:12px;display:flex;flex-wrap:wrap;gap:4px 14px}
svg text{font-family:inherit}svg .tick{font-size:11px;fill:#444}svg .axis{font-size:12px;fill:#222}svg .host{font-size:12px;fill:#222}
svg .rank{font-size:12px;font-weight:600;fill:#fff;paint-order:stroke;stroke:#0006;stroke-width:2px}svg .cellnote{font-size:9px}
svg .cell.hl rect{stroke:#000;stroke-width:3px}.charts{display:flex;flex-wrap:wrap;gap:14px}
.membar{display:inline-block;width:240px;height:12px;border:1px solid #888;vertical-align:-2px;margin:0 8px;background:#fff}
.membar span{display:block;height:100%;background:#4c78a8}.membar span.over{background:#d62728}
)";

// Hovering a cell outlines every cell of its series in that picture: a slot, every slot of its
// group (or every unused slot).
constexpr const char* kScript = R"(
document.querySelectorAll('svg[data-kind="cells"]').forEach(function (svg) {
  svg.querySelectorAll('g.cell').forEach(function (cell) {
    var g = cell.getAttribute('data-series');
    var mark = function (on) {
      svg.querySelectorAll('g.cell[data-series="' + g + '"]').forEach(function (c) { c.classList.toggle('hl', on); });
    };
    cell.addEventListener('mouseenter', function () { mark(true); });
    cell.addEventListener('mouseleave', function () { mark(false); });
  });
});
)";

std::string esc(const std::string& s) { return html_escape(s); }

void para(std::ostream& out, const std::string& text, const char* cls = nullptr) {
  out << "<p" << (cls ? std::string(" class=\"") + cls + "\"" : "") << ">" << esc(text) << "</p>\n";
}

void bullets(std::ostream& out, const std::vector<std::string>& items) {
  if (items.empty()) return;
  out << "<ul>";
  for (const auto& i : items) out << "<li>" << esc(i) << "</li>";
  out << "</ul>\n";
}

std::string hosts_of(const SlotGrid& grid, const std::vector<int>& slots) {
  std::vector<std::string> hosts;
  for (const int s : slots) {
    std::size_t n = 0;
    while (n + 1 < grid.first_slot.size() && grid.first_slot[n + 1] <= s) ++n;
    if (n < grid.hosts.size() && std::find(hosts.begin(), hosts.end(), grid.hosts[n]) == hosts.end()) hosts.push_back(grid.hosts[n]);
  }
  return join(hosts, ", ");
}

std::string ints(const std::vector<int>& v, std::size_t limit = 12) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < limit; ++i) out += (i ? "," : "") + std::to_string(v[i]);
  if (v.size() > limit) out += ",…";
  return out;
}

// The panels of the described figures whose PNG name starts with `prefix`, one chart each.
void charts_of(std::ostream& out, const std::vector<ChartFigure>& charts, const std::string& prefix) {
  out << "<div class=\"charts\">\n";
  for (const auto& f : charts) {
    if (f.file_name.rfind(prefix, 0) != 0) continue;
    for (const auto& c : f.panels) chart_svg(out, c);
  }
  out << "</div>\n";
}

void ranking_section(std::ostream& out, const Report& r, const std::vector<ChartFigure>& charts) {
  if (r.layouts) {
    out << "<section id=\"layouts\"><h2>Layouts</h2>\n";
    para(out, "each layout's best mapping by measured communication per step, the explorer's estimate beside it");
    layouts_table(*r.layouts).render_html(out);
    // The explorer's memory per GPU of each layout, as a share of the GPU's memory.
    std::ostringstream bars;
    for (const auto& row : r.layouts->rows) {
      const auto m = estimated_memory(row.estimate_json);
      if (!m) continue;
      const double share = std::clamp(m->need_gib / m->limit_gib, 0.0, 1.0);
      bars << "<li class=\"memory\">" << esc(row.name) << "<span class=\"membar\"><span"
           << (m->need_gib > m->limit_gib ? " class=\"over\"" : "") << " style=\"width:" << fixed(100 * share, 1) << "%\"></span></span>"
           << fixed(m->need_gib, 1) << " of " << fixed(m->limit_gib, 1) << " GiB</li>";
    }
    if (!bars.str().empty())
      out << "<h3>Memory per GPU, the explorer's estimate (most-loaded stage)</h3>\n<ul class=\"groups\">" << bars.str() << "</ul>\n";
    if (!r.layouts->note.empty()) bullets(out, {r.layouts->note});
    out << "</section>\n";
  }
  out << "<section id=\"ranking\"><h2>Ranking</h2>\n";
  para(out, ranking_title(r));
  ranking_table(r).render_html(out);
  charts_of(out, charts, "ranking");
  bullets(out, r.ranking.notes);
  if (r.ranking.basis == Ranking::Basis::workload && !r.ranking.mappings.empty()) {
    out << "<h3>Where the best mapping's step time goes (" << esc(r.ranking.mappings.front().name) << ")</h3>\n";
    step_breakdown_table(r).render_html(out);
  }
  out << "</section>\n";
}

void apply_section(std::ostream& out, const Report& r) {
  out << "<section id=\"apply\"><h2>How to apply the best mapping</h2>\n";
  if (!r.best) {
    para(out, "no complete mapping with a plan entry to apply; meshbench report --export DIR --mapping NAME writes one's files");
  } else {
    out << "<h3>" << esc(r.best->mapping) << "</h3>\n<pre>";
    for (const auto& l : apply_lines(*r.best)) out << esc(l) << "\n";
    out << "</pre>\n";
  }
  out << "</section>\n";
}

void group_list(std::ostream& out, const SlotGrid& grid, const DimPlacement& d) {
  constexpr std::size_t kShown = 16;
  out << "<ul class=\"groups\">";
  for (std::size_t g = 0; g < d.groups.size() && g < kShown; ++g) {
    const auto& grp = d.groups[g];
    out << "<li><span class=\"swatch\" style=\"background:" << group_colour(static_cast<int>(g)) << "\"></span>g" << g << ": ranks "
        << ints(grp.ranks) << " on slots " << ints(grp.slots) << " (" << esc(hosts_of(grid, grp.slots)) << ")";
    for (const auto& c : grp.crossed) out << "<span class=\"badge\" style=\"background:" << link_colour(c) << "\">" << esc(c) << "</span>";
    out << "</li>";
  }
  if (d.groups.size() > kShown) out << "<li>… " << d.groups.size() - kShown << " more groups</li>";
  out << "</ul>\n";
}

void placement_section(std::ostream& out, const Report& r) {
  out << "<section id=\"placement\"><h2>Where each mapping's groups land</h2>\n";
  if (!r.placement) {
    para(out, "the results file keeps no readable topology (or more than " + std::to_string(kMaxPlacementSlots) +
                  " slots): no placement pictures");
    out << "</section>\n";
    return;
  }
  const auto& p = *r.placement;
  para(out,
       "Nodes (rows) × slots (columns) per dimension: each group has its own colour and each slot shows its rank; the lines "
       "join a group's members in rank order (a ring), stroked by the link class between the two slots. The badges list every "
       "link class between any two members of a group (what an all-to-all crosses).");
  for (std::size_t k = 0; k < p.mappings.size(); ++k) {
    const auto& m = p.mappings[k];
    out << "<h3 id=\"placement-" << k << "\">" << (m.rank > 0 ? "#" + std::to_string(m.rank) + " " : std::string("unranked "))
        << esc(m.mapping) << "</h3>\n<div class=\"dims\">\n";
    // The pictures as placement.png draws them, each dimension's over its list of groups.
    const auto charts = placement_charts(p, k);
    for (std::size_t i = 0; i < charts.size() && i < m.dims.size(); ++i) {
      out << "<div class=\"dim\">";
      chart_svg(out, charts[i]);
      group_list(out, p.grid, m.dims[i]);
      out << "</div>\n";
    }
    out << "</div>\n";
  }
  out << "</section>\n";
}

void links_section(std::ostream& out, const Report& r) {
  out << "<section id=\"links\"><h2>Link classes between slots</h2>\n";
  if (!r.placement || r.placement->grid.links.empty()) {
    para(out, r.placement ? "more than " + std::to_string(kMaxLinkMatrixSlots) + " slots: the slot × slot map is left out"
                          : "the results file keeps no readable topology");
    out << "</section>\n";
    return;
  }
  const auto& g = r.placement->grid;
  para(out, "Slot × slot, coloured by how the two slots are connected (closest darkest); black lines separate the nodes.");
  link_matrix_svg(out, g);
  out << "<ul class=\"legend\">";
  for (const auto& c : g.classes)
    out << "<li><span class=\"swatch\" style=\"background:" << link_colour(c) << "\"></span>" << esc(c) << "</li>";
  out << "</ul>\n</section>\n";
}

void busbw_section(std::ostream& out, const Report& r, const std::vector<ChartFigure>& charts) {
  out << "<section id=\"busbw\"><h2>busbw against size</h2>\n";
  para(out, r.ranking.timing + " concurrent medians, one line per mapping (colour by rank, as listed under each chart).");
  bullets(out, borrowed_dims_lines(r));
  charts_of(out, charts, "busbw_");
  out << "</section>\n";
}

// "% of expected": every point's busbw against the model's, the points below the threshold named.
void expected_html_section(std::ostream& out, const Report& r) {
  out << "<section id=\"expected\"><h2>% of expected</h2>\n";
  const auto intro = expected_intro_lines(r);
  for (const auto& l : intro) para(out, l, r.expected.known ? nullptr : "meta");
  if (r.expected.known) {
    const auto below = expected_below_lines(r, 20);
    if (!below.empty()) para(out, below.front(), r.expected.below.empty() ? nullptr : "warn");
    bullets(out, std::vector<std::string>(below.begin() + (below.empty() ? 0 : 1), below.end()));
    std::size_t left_out = 0;
    expected_table(r, 200, left_out).render_html(out);
    if (left_out > 0) para(out, std::to_string(left_out) + " more points in meshbench report --format csv or json");
  }
  out << "</section>\n";
}

void predictions_section(std::ostream& out, const Report& r, const std::vector<ChartFigure>& charts) {
  out << "<section id=\"predictions\"><h2>Predicted against measured</h2>\n";
  if (r.accuracy && !r.accuracy->predictors.empty()) {
    const auto& a = *r.accuracy;
    para(out, "The cost model's time against the " + a.timing +
                  " median (µs), for every measured point and every mapping's total; on the dashed line the model is exact.");
    charts_of(out, charts, "predicted_vs_measured");
    para(out, a.basis);
    accuracy_summary_table(a).render_html(out);
    out << "<h3>Per dimension</h3>\n";
    accuracy_dims_table(a).render_html(out);
    out << "<h3>Per mapping</h3>\n";
    accuracy_mappings_table(a).render_html(out);
    bullets(out, a.notes);
  }
  out << "<h3>The plan's predictions</h3>\n";
  if (r.predictions) {
    // Without an accuracy section the figure of that name is the plan's (describe_charts).
    if (!r.accuracy || r.accuracy->predictors.empty()) charts_of(out, charts, "predicted_vs_measured");
    para(out, r.predictions->basis);
    prediction_table(*r.predictions).render_html(out);
    if (r.predictions->compared_mappings >= 2) {
      const double rho = r.predictions->rank_correlation;
      para(out, "rank correlation (Spearman) over " + std::to_string(r.predictions->compared_mappings) +
                    " mappings: " + (std::isfinite(rho) ? fixed(rho, 2) : std::string("none (the plan predicts every mapping equal)")));
    }
  } else {
    para(out, "the plan made no prediction for these mappings");
  }
  out << "</section>\n";
}

void spread_section(std::ostream& out, const Report& r, const std::vector<ChartFigure>& charts) {
  out << "<section id=\"spread\"><h2>Group spread and slow hosts</h2>\n";
  para(out, "Spread across the groups of a dimension that ran at once, at the largest size (min / median / max of the group medians).");
  spread_table(r).render_html(out);
  charts_of(out, charts, "group_spread");
  const auto worst = worst_spread_lines(r, 5);
  if (!worst.empty()) {
    out << "<h3>Largest spreads at any size</h3>\n";
    bullets(out, worst);
  }
  out << "<h3>Slow hosts</h3>\n";
  bullets(out, slow_host_lines(r));
  const auto transports = transport_lines(r);
  if (!transports.empty()) {
    out << "<h3>Transports NCCL used</h3>\n";
    bullets(out, transports);
  }
  out << "</section>\n";
}

bool has_hardware_section(const Report& r) {
  return r.nic.visits > 0 || r.gpu_health.sampled || !r.gpu_health.host_copies.empty() || !r.io.empty();
}

// What the run read besides the timings (NIC counters, GPU health, host copies) and meshbench io's
// checkpoint bandwidth: the same tables as the console, so the page is the whole report.
void hardware_section(std::ostream& out, const Report& r) {
  if (!has_hardware_section(r)) return;
  out << "<section id=\"hardware\"><h2>NICs, GPUs and checkpoint I/O</h2>\n";
  if (r.nic.visits > 0) {
    out << "<h3>NIC counters against the op's bytes off each host (" << r.nic.visits << " visits)</h3>\n";
    std::size_t left_out = 0;
    nic_traffic_table(r, 40, left_out).render_html(out);
    if (left_out > 0) bullets(out, {std::to_string(left_out) + " more rows in report --format csv or json"});
    bullets(out, r.nic.notes);
    const auto events = nic_event_lines(r);
    if (events.empty()) para(out, "No retransmit, drop or error was counted during any point.");
    bullets(out, events);
  }
  if (r.gpu_health.sampled) {
    out << "<h3>GPU health while measuring (NVML), hosts beside their slow-group tally</h3>\n";
    bullets(out, throttled_point_lines(r));
    gpu_host_table(r).render_html(out);
  }
  if (!r.gpu_health.host_copies.empty()) {
    out << "<h3>Host&harr;GPU copy bandwidth per slot</h3>\n";
    host_copy_table(r).render_html(out);
  }
  if (!r.io.empty()) {
    out << "<h3>Checkpoint I/O (meshbench io)</h3>\n";
    io_table(r.io).render_html(out);
  }
  out << "</section>\n";
}

}  // namespace

void HtmlReportWriter::write(const Report& r, std::ostream& out) const {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, "
         "initial-scale=1\">\n"
      << "<title>meshbench report: " << esc(r.run.path) << "</title>\n<style>" << kStyle << "</style></head>\n<body>\n";
  out << "<h1>meshbench report: " << esc(r.run.path) << "</h1>\n";
  para(out, "run: " + run_line(r), "meta");
  para(out, "layout: " + layout_line(r), "meta");
  out << "<nav>" << (r.layouts ? "<a href=\"#layouts\">layouts</a>" : "")
      << "<a href=\"#ranking\">ranking</a><a href=\"#apply\">apply</a><a href=\"#placement\">placement</a><a href=\"#links\">links</a>"
      << "<a href=\"#busbw\">busbw</a><a href=\"#expected\">% of expected</a><a href=\"#predictions\">predicted vs measured</a><a "
         "href=\"#spread\">spread and slow "
         "hosts</a>"
      << (has_hardware_section(r) ? "<a href=\"#hardware\">NICs, GPUs, I/O</a>" : "") << "</nav>\n";
  if (!r.wrong.empty()) {
    out << "<section id=\"wrong\" class=\"warn\"><h2>Wrong results: these points' checks counted wrong elements</h2>\n";
    wrong_table(r).render_html(out);
    out << "</section>\n";
  }
  const auto charts = describe_charts(r);  // drawn as --plot's PNGs draw them
  ranking_section(out, r, charts);
  apply_section(out, r);
  placement_section(out, r);
  links_section(out, r);
  busbw_section(out, r, charts);
  expected_html_section(out, r);
  predictions_section(out, r, charts);
  spread_section(out, r, charts);
  hardware_section(out, r);
  out << "<script>" << kScript << "</script>\n</body></html>\n";
}

}  // namespace meshbench::analysis
