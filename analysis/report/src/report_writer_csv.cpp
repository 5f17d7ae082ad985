#include <cstdio>
#include <ostream>

#include "analysis/report/report_writers.hpp"
#include "analysis/report/text_table.hpp"
#include "common/strings.hpp"
#include "results/point_key.hpp"

namespace meshbench::analysis {

namespace {

// One row of the tidy table; empty fields stay empty.
struct CsvRow {
  std::string section, rank, mapping, dim, op, timing, concurrency, bytes, metric, value, detail;
};

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

class Csv {
 public:
  explicit Csv(std::ostream& out) : out_(out) { out_ << "section,rank,mapping,dim,op,timing,concurrency,bytes,metric,value,detail\n"; }
  void row(const CsvRow& r) {
    const std::string* cells[] = {&r.section,     &r.rank,  &r.mapping, &r.dim,   &r.op,    &r.timing,
                                  &r.concurrency, &r.bytes, &r.metric,  &r.value, &r.detail};
    bool first = true;
    for (const auto* c : cells) {
      out_ << (first ? "" : ",") << csv_field(*c);
      first = false;
    }
    out_ << "\n";
  }

 private:
  std::ostream& out_;
};

std::string rank_text(const Report& r, const std::string& mapping) {
  for (const auto& m : r.ranking.mappings) {
    if (m.name == mapping) return std::to_string(m.rank);
  }
  return "";
}

// A row of one point: its mapping's rank and the point's fields.
CsvRow point_row(const Report& r, std::string section, const results::PointKey& k, std::string metric, std::string value,
                 std::string detail) {
  return {std::move(section), rank_text(r, k.mapping), k.mapping,        k.dim, k.op, k.timing, k.concurrency, std::to_string(k.bytes),
          std::move(metric),  std::move(value),        std::move(detail)};
}

}  // namespace

void CsvReportWriter::write(const Report& r, std::ostream& out) const {
  Csv csv(out);
  const auto& k = r.ranking;
  const bool workload = k.basis == Ranking::Basis::workload;
  const std::string score_metric = workload ? "step_us" : "score_x_best";
  if (r.layouts) {
    for (const auto& l : r.layouts->rows) {
      if (l.best_mapping.empty()) continue;
      const std::string rank = std::to_string(l.rank);
      csv.row({"layouts", rank, l.best_mapping, "", "", k.timing, k.concurrency, "", "step_us", number(l.best_us), l.name});
      if (!l.baseline_mapping.empty()) {
        csv.row(
            {"layouts", rank, l.baseline_mapping, "", "", k.timing, k.concurrency, "", "baseline_step_us", number(l.baseline_us), l.name});
      }
    }
  }
  for (const auto& m : k.mappings) {
    const std::string rank = std::to_string(m.rank);
    csv.row({"ranking", rank, m.name, "", "", k.timing, k.concurrency, "", score_metric, number(m.score), m.complete ? "" : "incomplete"});
    for (const auto& d : m.dims) {
      csv.row(
          {"ranking", rank, m.name, d.dim, "", k.timing, k.concurrency, "", score_metric, number(d.value), d.complete ? "" : "incomplete"});
    }
    for (const auto& e : m.ops) {
      const std::string detail =
          e.missing ? "missing" : std::string(to_string(e.how)) + (e.source_dim != e.dim ? " from " + e.source_dim : "");
      csv.row({"estimate", rank, m.name, e.dim, e.op, k.timing, k.concurrency, std::to_string(e.bytes), "calls_per_step",
               number(e.calls_per_step), detail});
      if (!e.missing) {
        csv.row({"estimate", rank, m.name, e.dim, e.op, k.timing, k.concurrency, std::to_string(e.bytes), "per_call_us",
                 number(e.per_call_us), detail});
        csv.row({"estimate", rank, m.name, e.dim, e.op, k.timing, k.concurrency, std::to_string(e.bytes), "step_us", number(e.step_us),
                 detail});
      }
    }
  }
  for (const auto& c : r.curves) {
    auto point = c.key;
    for (const auto& p : c.points) {
      point.bytes = p.bytes;  // the key of the curve's point at this size
      csv.row(point_row(r, "curve", point, "t_median_us", number(p.t_median_us), ""));
      csv.row(point_row(r, "curve", point, "busbw_gbps", number(p.busbw_gbps), ""));
    }
  }
  for (const auto& s : r.spreads) {
    const std::string detail = "slowest group " + std::to_string(s.slowest_group) + " on " + join(s.slowest_hosts, " ");
    for (const auto& [metric, value] :
         {std::pair{"group_min_us", s.min_us}, {"group_median_us", s.median_us}, {"group_max_us", s.max_us}, {"spread", s.spread}}) {
      csv.row(point_row(r, "spread", s.point, metric, number(value), detail));
    }
  }
  if (r.predictions) {
    const std::string measured_metric = r.predictions->like_for_like ? "measured_us" : "measured_" + r.ranking.unit();
    for (const auto& p : r.predictions->rows) {
      const std::string rank = rank_text(r, p.mapping);
      csv.row({"prediction", rank, p.mapping, p.dim, "", "", "", "", "predicted_us", number(p.predicted_us), r.predictions->basis});
      if (p.measured > 0)
        csv.row({"prediction", rank, p.mapping, p.dim, "", "", "", "", measured_metric, number(p.measured), r.predictions->basis});
    }
  }
  if (r.accuracy) {
    // Per predictor (detail): the summaries, per dimension, every mapping's total and every point.
    for (const auto& a : r.accuracy->predictors) {
      const auto errors = [&](const std::string& dim, const std::string& what, const ErrorSummary& e) {
        csv.row({"accuracy", "", "", dim, "", r.accuracy->timing, "", "", "median_rel_error_" + what, number(e.median_rel_error), a.name});
        csv.row({"accuracy", "", "", dim, "", r.accuracy->timing, "", "", "p90_rel_error_" + what, number(e.p90_rel_error), a.name});
        csv.row({"accuracy", "", "", dim, "", r.accuracy->timing, "", "", "points_" + what, std::to_string(e.points), a.name});
      };
      const auto order = [&](const std::string& dim, const OrderAccuracy& o) {
        errors(dim, "mappings", o.error);
        csv.row({"accuracy", "", "", dim, "", r.accuracy->timing, "", "", "spearman", number(o.spearman), a.name});
        csv.row({"accuracy", "", "", dim, "", r.accuracy->timing, "", "", "regret", number(o.regret), a.name});
      };
      errors("", "all", a.all);
      errors("", "large", a.large);
      errors("", "concurrent_large", a.concurrent_large);
      errors("", "shared_large", a.shared_large);
      order("", a.order);
      for (const auto& d : a.dims) {
        errors(d.dim, "all", d.all);
        errors(d.dim, "large", d.large);
        order(d.dim, d.order);
      }
      for (const auto& t : a.totals) {
        const std::string rank = rank_text(r, t.mapping), dim = t.dim == "step" ? "" : t.dim;
        csv.row({"accuracy_total", rank, t.mapping, dim, "", r.accuracy->timing, "", "", "predicted_us", number(t.predicted_us), a.name});
        csv.row({"accuracy_total", rank, t.mapping, dim, "", r.accuracy->timing, "", "", "measured_us", number(t.measured_us), a.name});
      }
      const bool first = &a == &r.accuracy->predictors.front();
      for (const auto& p : a.points) {
        csv.row(point_row(r, "accuracy_point", p.point, "predicted_us", number(p.predicted_us), a.name));
        if (first) csv.row(point_row(r, "accuracy_point", p.point, "measured_us", number(p.measured_us), "measured"));
      }
    }
  }
  // "% of expected": per point the model's busbw and the share of it measured; the detail says
  // how the model priced it, and "below" for a point under the threshold.
  if (r.expected.known) {
    csv.row({"expected", "", "", "", "", r.ranking.timing, "", "", "expect_below_pct", number(r.expected.threshold_pct), r.expected.model});
    for (const auto& p : r.expected.points) {
      const std::string detail =
          (p.protocol.empty() ? p.algorithm : p.algorithm + "/" + p.protocol) + (p.expected_pct < r.expected.threshold_pct ? " below" : "");
      csv.row(point_row(r, "expected", p.point, "predicted_busbw_gbps", number(p.predicted_busbw_gbps), detail));
      csv.row(point_row(r, "expected", p.point, "expected_pct", number(p.expected_pct), detail));
    }
  }
  for (const auto& n : r.nic.rows) {
    const std::string detail =
        n.host + " " + n.nic + " round " + std::to_string(n.visit.round) + " attempt " + std::to_string(n.visit.attempt);
    const std::pair<const char*, double> metrics[] = {
        {"tx_payload_bytes", n.tx_payload}, {"expected_tx_bytes", n.expected_tx}, {"measured_over_expected", n.ratio > 0 ? n.ratio : -1}};
    for (const auto& [metric, value] : metrics) {
      if (value >= 0) csv.row(point_row(r, "nic", n.visit.point, metric, number(value), detail));
    }
  }
  for (const auto& e : r.nic.events) {
    csv.row(point_row(r, "nic_event", e.visit.point, "event", e.what,
                      e.host + " " + e.nic + " round " + std::to_string(e.visit.round) + " attempt " + std::to_string(e.visit.attempt)));
  }
  for (const auto& w : r.wrong) {
    const auto& p = w.point;
    csv.row({"wrong", rank_text(r, p.mapping), p.mapping, p.dim, p.op, p.timing, "", std::to_string(p.bytes), "wrong_elements",
             std::to_string(w.wrong), ""});
  }
  // meshbench io: the method in op, the phase in timing, the shard per rank in bytes.
  for (const auto& s : r.io) {
    const std::string bytes = std::to_string(s.shard_bytes),
                      detail = s.folder + " (" + s.filesystem + "), " + std::to_string(s.ranks) + " ranks, " + s.at;
    csv.row({"io", "", "", "", s.method, s.phase, "", bytes, "gbps_median", number(s.median_gbps), detail});
    csv.row({"io", "", "", "", s.method, s.phase, "", bytes, "slowest_host_gbps", number(s.slowest_gbps), s.slowest_host});
    if (s.phase == "read") csv.row({"io", "", "", "", s.method, s.phase, "", bytes, "wrong_words", std::to_string(s.wrong), detail});
  }
}

}  // namespace meshbench::analysis
