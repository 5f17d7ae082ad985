#include <cmath>
#include <ostream>

#include "analysis/report/report_writers.hpp"
#include "analysis/report/text_table.hpp"
#include "common/error.hpp"
#include "results/point_key.hpp"

namespace meshbench::analysis {

namespace {

using nlohmann::ordered_json;

// A curve's key first: a point's fields but its size (and not its layout: the report names a
// mapping, which has one), then `rest`.
ordered_json with_curve_key(const results::PointKey& k, const ordered_json& rest) {
  ordered_json j = {{"mapping", k.mapping}, {"dim", k.dim}, {"op", k.op}, {"timing", k.timing}, {"concurrency", k.concurrency}};
  for (const auto& [name, value] : rest.items()) j[name] = value;
  return j;
}

// A point's fields first (its curve's key, then its size), then `rest`.
ordered_json with_point(const results::PointKey& k, const ordered_json& rest) {
  ordered_json j = with_curve_key(k, {{"bytes", k.bytes}});
  for (const auto& [name, value] : rest.items()) j[name] = value;
  return j;
}

// A visit's point, its round and, where asked, its attempt, then `rest`.
ordered_json with_visit(const results::PointVisit& v, bool attempt, const ordered_json& rest) {
  ordered_json j = with_point(v.point, {{"round", v.round}});
  if (attempt) j["attempt"] = v.attempt;
  for (const auto& [name, value] : rest.items()) j[name] = value;
  return j;
}

ordered_json spread_json(const GroupSpread& s) {
  return with_point(s.point, {{"groups", s.groups},
                              {"min_us", s.min_us},
                              {"median_us", s.median_us},
                              {"max_us", s.max_us},
                              {"spread", s.spread},
                              {"slowest_group", s.slowest_group},
                              {"fastest_group", s.fastest_group},
                              {"slowest_ranks", s.slowest_ranks},
                              {"slowest_slots", s.slowest_slots},
                              {"slowest_hosts", s.slowest_hosts},
                              {"group_us", s.group_us}});
}

ordered_json nic_json(const NicTraffic& n) {
  const auto known = [](double v) { return v >= 0 ? ordered_json(v) : ordered_json(nullptr); };
  ordered_json rows = ordered_json::array(), events = ordered_json::array();
  for (const auto& r : n.rows) {
    rows.push_back(with_visit(r.visit, true,
                              {{"host", r.host},
                               {"nic", r.nic},
                               {"kind", r.kind},
                               {"ops", r.ops},
                               {"tx_bytes", known(static_cast<double>(r.tx_bytes))},
                               {"rx_bytes", known(static_cast<double>(r.rx_bytes))},
                               {"tx_payload_bytes", known(r.tx_payload)},
                               {"rx_payload_bytes", known(r.rx_payload)},
                               {"expected_tx_bytes", known(r.expected_tx)},
                               {"measured_over_expected", r.ratio > 0 ? ordered_json(r.ratio) : ordered_json(nullptr)},
                               {"model", to_string(r.model)}}));
  }
  for (const auto& e : n.events) {
    events.push_back(with_visit(e.visit, true, {{"host", e.host}, {"nic", e.nic}, {"what", e.what}}));
  }
  return {{"visits", n.visits}, {"notes", n.notes}, {"rows", rows}, {"events", events}};
}

ordered_json ranking_json(const Ranking& k) {
  ordered_json j;
  j["basis"] = k.basis == Ranking::Basis::workload ? "workload" : "default";
  j["unit"] = k.unit();
  if (k.basis == Ranking::Basis::workload) j["workload"] = {{"name", k.workload_name}, {"source", k.workload_source}};
  j["timing"] = k.timing;
  j["concurrency"] = k.concurrency;
  j["dims"] = k.dims;
  j["mappings"] = ordered_json::array();
  for (const auto& m : k.mappings) {
    ordered_json dims = ordered_json::object();
    for (const auto& d : m.dims) dims[d.dim] = d.complete || d.value != 0 ? ordered_json(d.value) : ordered_json(nullptr);
    ordered_json row = {{"rank", m.rank},   {"name", m.name},       {"how", m.how},           {"digest", results::digest_hex(m.digest)},
                        {"score", m.score}, {"vs_best", m.vs_best}, {"complete", m.complete}, {"dims", dims}};
    if (k.basis == Ranking::Basis::workload) {
      row["ops"] = ordered_json::array();
      for (const auto& e : m.ops) {
        row["ops"].push_back({{"dim", e.dim},
                              {"op", e.op},
                              {"bytes", e.bytes},
                              {"calls_per_step", e.calls_per_step},
                              {"per_call_us", e.missing ? ordered_json(nullptr) : ordered_json(e.per_call_us)},
                              {"step_us", e.missing ? ordered_json(nullptr) : ordered_json(e.step_us)},
                              {"source_dim", e.source_dim},
                              {"read", e.missing ? "missing" : to_string(e.how)}});
      }
    } else {
      row["points"] = m.points;
    }
    j["mappings"].push_back(row);
  }
  j["notes"] = k.notes;
  return j;
}

ordered_json number_or_null(double v) { return std::isfinite(v) ? ordered_json(v) : ordered_json(nullptr); }

ordered_json errors_json(const ErrorSummary& e) {
  return {
      {"points", e.points}, {"median_rel_error", number_or_null(e.median_rel_error)}, {"p90_rel_error", number_or_null(e.p90_rel_error)}};
}

ordered_json order_json(const OrderAccuracy& o) {
  return {{"mappings", o.mappings},
          {"error", errors_json(o.error)},
          {"spearman", number_or_null(o.spearman)},
          {"regret", number_or_null(o.regret)},
          {"predicted_best", o.predicted_best},
          {"predicted_best_ties", o.predicted_best_ties},
          {"measured_best", o.measured_best}};
}

ordered_json accuracy_json(const PredictionAccuracy& a) {
  ordered_json predictors = ordered_json::array();
  for (const auto& p : a.predictors) {
    ordered_json dims = ordered_json::array();
    for (const auto& d : p.dims)
      dims.push_back({{"dim", d.dim}, {"all", errors_json(d.all)}, {"large", errors_json(d.large)}, {"order", order_json(d.order)}});
    ordered_json totals = ordered_json::array();
    for (const auto& t : p.totals) {
      totals.push_back({{"mapping", t.mapping},
                        {"dim", t.dim},
                        {"predicted_us", t.predicted_us},
                        {"measured_us", t.measured_us},
                        {"predicted_rank", t.predicted_rank},
                        {"measured_rank", t.measured_rank}});
    }
    ordered_json points = ordered_json::array();
    for (const auto& x : p.points) {
      points.push_back(with_point(x.point, {{"flows", x.flows}, {"predicted_us", x.predicted_us}, {"measured_us", x.measured_us}}));
    }
    predictors.push_back({{"name", p.name},
                          {"source", p.source},
                          {"points",
                           {{"all", errors_json(p.all)},
                            {"large", errors_json(p.large)},
                            {"concurrent_large", errors_json(p.concurrent_large)},
                            {"shared_large", errors_json(p.shared_large)}}},
                          {"order", order_json(p.order)},
                          {"dims", dims},
                          {"totals", totals},
                          {"point_predictions", points}});
  }
  return {{"timing", a.timing},       {"per_step", a.per_step}, {"basis", a.basis}, {"large_bytes", kLargePointBytes},
          {"predictors", predictors}, {"notes", a.notes}};
}

// "% of expected": per point the model's busbw and the share of it measured.
ordered_json expected_json(const ExpectedSection& e) {
  const auto point = [](const ExpectedPoint& x) {
    return with_point(x.point, {{"busbw_gbps", x.measured_busbw_gbps},
                                {"predicted_busbw_gbps", x.predicted_busbw_gbps},
                                {"expected_pct", x.expected_pct},
                                {"algorithm", x.algorithm},
                                {"protocol", x.protocol}});
  };
  ordered_json points = ordered_json::array(), below = ordered_json::array();
  for (const auto& x : e.points) points.push_back(point(x));
  for (const auto& x : e.below) below.push_back(point(x));
  return {{"known", e.known},         {"threshold_pct", e.threshold_pct},
          {"predictor", e.predictor}, {"model", e.model},
          {"hardware", e.hardware},   {"note", e.note.empty() ? ordered_json(nullptr) : ordered_json(e.note)},
          {"points", points},         {"below", below}};
}

// The colours and strokes travel with the placement, so that a reader of the JSON draws what the
// page and placement.png draw.
ordered_json placement_json(const Placements& p) {
  const auto& g = p.grid;
  ordered_json nodes = ordered_json::array();
  for (std::size_t n = 0; n < g.hosts.size(); ++n) {
    nodes.push_back({{"host", g.hosts[n]}, {"first_slot", g.first_slot[n]}, {"slots", g.slot_count[n]}});
  }
  ordered_json classes = ordered_json::array();
  for (const auto& c : g.classes) classes.push_back({{"name", c}, {"colour", link_colour(c)}, {"dash", link_dash(c)}});
  ordered_json mappings = ordered_json::array();
  for (const auto& m : p.mappings) {
    ordered_json dims = ordered_json::array();
    for (const auto& d : m.dims) {
      ordered_json groups = ordered_json::array();
      for (std::size_t i = 0; i < d.groups.size(); ++i) {
        const auto& grp = d.groups[i];
        ordered_json hops = ordered_json::array();
        for (const auto& h : grp.hops) hops.push_back({{"from_slot", h.from_slot}, {"to_slot", h.to_slot}, {"link", h.link}});
        groups.push_back({{"colour", group_colour(static_cast<int>(i))},
                          {"ranks", grp.ranks},
                          {"slots", grp.slots},
                          {"crossed", grp.crossed},
                          {"hops", hops}});
      }
      dims.push_back({{"dim", d.dim}, {"group_of_slot", d.group_of_slot}, {"rank_of_slot", d.rank_of_slot}, {"groups", groups}});
    }
    mappings.push_back({{"mapping", m.mapping}, {"rank", m.rank}, {"dims", dims}});
  }
  return {{"slots", g.slots}, {"nodes", nodes}, {"link_classes", classes}, {"links", g.links}, {"mappings", mappings}};
}

}  // namespace

ordered_json gpu_health_json(const GpuHealthSection& g) {
  ordered_json throttled = ordered_json::array();
  for (const auto& t : g.throttled) {
    throttled.push_back(with_visit(t.visit, false,
                                   {{"host", t.host},
                                    {"rank", t.rank},
                                    {"bus_id", t.bus_id},
                                    {"reasons", t.reasons},
                                    {"throttled_readings", t.throttled_readings},
                                    {"readings", t.readings}}));
  }
  ordered_json hosts = ordered_json::array();
  for (const auto& h : g.hosts) {
    hosts.push_back({{"host", h.host},
                     {"gpus", h.gpus},
                     {"throttled_points", h.throttled_points},
                     {"reasons", h.reasons},
                     {"temperature_max_c", number_or_null(h.temperature_max_c)},
                     {"sm_clock_min_mhz", number_or_null(h.sm_clock_min_mhz)},
                     {"ecc_corrected", h.ecc_corrected},
                     {"ecc_uncorrected", h.ecc_uncorrected},
                     {"pcie_replays", h.pcie_replays},
                     {"slowest_only", h.slowest_only},
                     {"points", h.points}});
  }
  ordered_json copies = ordered_json::array();
  for (const auto& c : g.host_copies) {
    copies.push_back({{"host", c.host},
                      {"rank", c.rank},
                      {"bus_id", c.bus_id},
                      {"numa_node", c.numa_node},
                      {"locality", c.locality},
                      {"direction", c.direction},
                      {"bytes", c.bytes},
                      {"iters", c.iters},
                      {"gbps_median", c.gbps_median},
                      {"gbps_max", c.gbps_max}});
  }
  return {{"sampled", g.sampled}, {"throttled", throttled}, {"hosts", hosts}, {"host_copies", copies}};
}

ordered_json report_to_json(const Report& r) {
  ordered_json j;
  j["schema"] = "meshbench.report";
  j["schema_version"] = kReportJsonVersion;
  const auto& run = r.run;
  j["run"] = {{"path", run.path},
              {"status", run.status},
              {"backend", run.backend},
              {"started_at", run.started_at},
              {"finished_at", run.finished_at},
              {"meshbench_version", run.meshbench_version},
              {"hosts", run.hosts},
              {"layout",
               {{"world", run.world},
                {"tp", run.tp},
                {"cp", run.cp},
                {"pp", run.pp},
                {"ep", run.ep},
                {"etp", run.etp},
                {"dp", run.dp},
                {"edp", run.edp},
                {"order", run.order}}},
              {"mappings", run.mappings},
              {"rows", run.rows},
              {"failures", run.failure_messages}};
  if (r.layouts) {
    ordered_json rows = ordered_json::array();
    for (const auto& l : r.layouts->rows) {
      const auto estimate = nlohmann::json::parse(l.estimate_json.empty() ? "null" : l.estimate_json, nullptr, false);
      rows.push_back({{"rank", l.rank},
                      {"layout", l.name},
                      {"sizes", l.sizes},
                      {"layout_key", l.layout},
                      {"best_mapping", l.best_mapping},
                      {"comm_us_per_step", l.best_us},
                      {"vs_best", l.vs_best},
                      {"baseline_mapping", l.baseline_mapping},
                      {"baseline_comm_us_per_step", l.baseline_us},
                      {"estimate", estimate.is_discarded() ? ordered_json(l.estimate_json) : ordered_json::parse(estimate.dump())}});
    }
    j["layouts"] = {{"note", r.layouts->note}, {"rows", rows}};
  }
  j["ranking"] = ranking_json(r.ranking);
  if (r.best) {
    const auto& h = *r.best;
    ordered_json cvd = ordered_json::object();
    for (const auto& [host, order] : h.cuda_visible_devices) cvd[host] = order;
    j["best"] = {{"mapping", h.mapping},
                 {"plan_source", h.plan_source},
                 {"pure_order", h.pure_order},
                 {"needs_placement", h.needs_placement()},
                 {"megatron", h.megatron},
                 {"rankfile", h.rankfile},
                 {"slurm_hostfile", h.slurm_hostfile},
                 {"cuda_visible_devices", cvd}};
  } else {
    j["best"] = nullptr;
  }
  j["curves"] = ordered_json::array();
  for (const auto& c : r.curves) {
    ordered_json points = ordered_json::array();
    for (const auto& p : c.points) {
      points.push_back(
          {{"bytes", p.bytes}, {"t_median_us", p.t_median_us}, {"busbw_gbps", p.busbw_gbps}, {"iters", p.iters}, {"wrong", p.wrong}});
    }
    j["curves"].push_back(with_curve_key(c.key, {{"group_size", c.group_size}, {"points", points}}));
  }
  j["group_spread"] = ordered_json::array();
  for (const auto& s : r.spreads) j["group_spread"].push_back(spread_json(s));
  j["group_spread_largest"] = ordered_json::array();
  for (const auto& s : r.largest_spreads) j["group_spread_largest"].push_back(spread_json(s));
  j["slow_hosts"] = ordered_json::array();
  for (const auto& h : r.slow_hosts) {
    j["slow_hosts"].push_back({{"host", h.host}, {"slowest_only", h.slowest_only}, {"points", h.points}, {"worst_spread", h.worst_spread}});
  }
  j["gpu_health"] = gpu_health_json(r.gpu_health);
  if (r.predictions) {
    ordered_json rows = ordered_json::array();
    for (const auto& p : r.predictions->rows) {
      ordered_json row = {{"mapping", p.mapping},
                          {"dim", p.dim},
                          {"predicted_us", p.predicted_us},
                          {"measured", p.measured > 0 ? ordered_json(p.measured) : ordered_json(nullptr)}};
      if (p.dim == "step") {
        row["predicted_rank"] = p.predicted_rank;
        row["measured_rank"] = p.measured_rank;
      }
      rows.push_back(row);
    }
    j["predictions"] = {{"like_for_like", r.predictions->like_for_like},
                        {"basis", r.predictions->basis},
                        {"rows", rows},
                        {"compared_mappings", r.predictions->compared_mappings},
                        {"rank_correlation", std::isfinite(r.predictions->rank_correlation) ? ordered_json(r.predictions->rank_correlation)
                                                                                            : ordered_json(nullptr)}};
  } else {
    j["predictions"] = nullptr;
  }
  j["prediction_accuracy"] = r.accuracy ? accuracy_json(*r.accuracy) : ordered_json(nullptr);
  j["expected"] = expected_json(r.expected);
  j["transports"] = ordered_json::array();
  for (const auto& t : r.transports)
    j["transports"].push_back({{"mapping", t.mapping}, {"dim", t.dim}, {"transport", t.transport}, {"ranks", t.ranks}});
  j["nic_counters"] = nic_json(r.nic);
  j["wrong"] = ordered_json::array();
  for (const auto& w : r.wrong) {
    j["wrong"].push_back({{"mapping", w.point.mapping},
                          {"dim", w.point.dim},
                          {"op", w.point.op},
                          {"timing", w.point.timing},
                          {"bytes", w.point.bytes},
                          {"wrong", w.wrong}});
  }
  j["placement"] = r.placement ? placement_json(*r.placement) : ordered_json(nullptr);
  j["io"] = ordered_json::array();
  for (const auto& s : r.io) {
    j["io"].push_back({{"at", s.at},
                       {"folder", s.folder},
                       {"filesystem", s.filesystem},
                       {"method", s.method},
                       {"phase", s.phase},
                       {"shard_bytes", s.shard_bytes},
                       {"ranks", s.ranks},
                       {"nodes", s.nodes},
                       {"repeats", s.repeats},
                       {"median_gbps", s.median_gbps},
                       {"min_gbps", s.min_gbps},
                       {"max_gbps", s.max_gbps},
                       {"slowest_host", s.slowest_host},
                       {"slowest_gbps", s.slowest_gbps},
                       {"read_mode", s.read_mode},
                       {"cached_fraction", s.cached_fraction >= 0 ? ordered_json(s.cached_fraction) : ordered_json(nullptr)},
                       {"wrong", s.wrong}});
  }
  return j;
}

void JsonReportWriter::write(const Report& report, std::ostream& out) const { out << report_to_json(report).dump(2) << "\n"; }

std::unique_ptr<ReportWriter> make_report_writer(OutputFormat format) {
  switch (format) {
    case OutputFormat::text: return std::make_unique<TextReportWriter>();
    case OutputFormat::markdown: return std::make_unique<MarkdownReportWriter>();
    case OutputFormat::csv: return std::make_unique<CsvReportWriter>();
    case OutputFormat::json: return std::make_unique<JsonReportWriter>();
  }
  throw InputError("unknown report format");
}

}  // namespace meshbench::analysis
