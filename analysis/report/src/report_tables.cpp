#include "analysis/report/src/report_tables.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "common/sizes.hpp"
#include "common/strings.hpp"
#include "mapping/layout.hpp"
#include "mapping/ops.hpp"

namespace meshbench::analysis::detail {

namespace {

std::string join(const std::vector<std::string>& items, const std::string& sep, std::size_t limit = 8) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) out += (i == 0 ? "" : sep) + items[i];
  if (items.size() > limit) out += sep + "… (" + std::to_string(items.size()) + ")";
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::string line;
  for (char c : text) {
    if (c == '\n') {
      if (!line.empty()) out.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

std::vector<std::string> to_strings(const std::vector<int>& v) {
  std::vector<std::string> out;
  for (int x : v) out.push_back(std::to_string(x));
  return out;
}

}  // namespace

int dim_order(const std::string& dim) {
  for (std::size_t i = 0; i < mapping::kAllDims.size(); ++i) {
    if (mapping::to_string(mapping::kAllDims[i]) == dim) return static_cast<int>(i);
  }
  return 99;
}

int op_order(const std::string& op) {
  for (std::size_t i = 0; i < mapping::kAllOps.size(); ++i) {
    if (mapping::to_string(mapping::kAllOps[i]) == op) return static_cast<int>(i);
  }
  return 99;
}

int rank_of(const Report& report, const std::string& mapping) {
  for (const auto& m : report.ranking.mappings) {
    if (m.name == mapping) return m.rank;
  }
  return 1 << 20;
}

std::string rank_text(double rank) { return rank == std::floor(rank) ? std::to_string(static_cast<long long>(rank)) : fixed(rank, 1); }

TimeUnit time_unit_for(double scale_us) {
  if (scale_us >= 1e6) return {"s", 1e6};
  if (scale_us >= 1e3) return {"ms", 1e3};
  return {"us", 1};
}

std::string rank_label(const Report& report, const std::string& mapping) {
  const int r = rank_of(report, mapping);
  return r < (1 << 20) ? "#" + std::to_string(r) : "";
}

std::string run_line(const Report& report) {
  const auto& r = report.run;
  std::string line = r.status + ", " + r.backend + " backend, " + std::to_string(r.world) + " ranks on " + std::to_string(r.hosts.size()) +
                     " host" + (r.hosts.size() == 1 ? "" : "s") + " (" + join(r.hosts, ", ", 4) + ")";
  line += ", started " + r.started_at + ", meshbench " + r.meshbench_version;
  if (r.failures > 0) line += "; " + std::to_string(r.failures) + " failure(s): " + r.failure_messages.front();
  return line;
}

std::string layout_line(const Report& report) {
  const auto& r = report.run;
  if (!r.layouts.empty()) {
    return std::to_string(r.layouts.size()) + " layouts (" + join(r.layouts, "; ") + "), mappings named after theirs; " +
           std::to_string(r.mappings) + " mappings, " + std::to_string(r.rows) + " measured points";
  }
  return "TP" + std::to_string(r.tp) + " CP" + std::to_string(r.cp) + " PP" + std::to_string(r.pp) + " EP" + std::to_string(r.ep) + " ETP" +
         std::to_string(r.etp) + " -> DP" + std::to_string(r.dp) + " EDP" + std::to_string(r.edp) + ", order " + r.order + "; " +
         std::to_string(r.mappings) + " mappings, " + std::to_string(r.rows) + " measured points";
}

std::string ranking_title(const Report& report) {
  const auto& k = report.ranking;
  if (k.basis == Ranking::Basis::workload) {
    return "estimated communication time per training step, workload '" +
           (k.workload_name.empty() ? std::string("unnamed") : k.workload_name) + "' (from " + k.workload_source + "), " + k.timing +
           " concurrent medians";
  }
  return "mappings ranked by measured time, no workload (pass --workload FILE for step time), " + k.timing + " concurrent medians";
}

Table ranking_table(const Report& report) {
  const auto& k = report.ranking;
  const bool workload = k.basis == Ranking::Basis::workload;
  // The unit suits the best mapping: the row the reader compares against, and the smaller
  // per-dimension figures stay out of scientific notation (0.128 s printed 9.14e-04 for a dim).
  double scale = 0;
  for (const auto& m : k.mappings) scale = scale == 0 ? m.score : std::min(scale, m.score);
  const TimeUnit unit = time_unit_for(scale);
  std::vector<std::string> headers = {">rank", "mapping", workload ? ">step " + std::string(unit.name) : ">score (x best)", ">vs best"};
  for (const auto& d : k.dims) headers.push_back(">" + d + (workload ? " " + std::string(unit.name) : ""));
  if (!workload) headers.push_back(">points");
  headers.push_back("note");
  Table t(headers);
  for (const auto& m : k.mappings) {
    std::vector<std::string> row = {std::to_string(m.rank), m.name, workload ? sig3(m.score / unit.divisor) : fixed(m.score, 3),
                                    fixed(m.vs_best, 2) + "x"};
    for (const auto& d : m.dims) {
      row.push_back(!d.complete && d.value == 0 ? "-" : workload ? sig3(d.value / unit.divisor) : fixed(d.value, 3));
    }
    if (!workload) row.push_back(std::to_string(m.points));
    std::string note = m.complete ? "" : "incomplete";
    if (workload && std::any_of(m.ops.begin(), m.ops.end(), [](const OpEstimate& e) { return e.how == ReadHow::extrapolated; })) {
      note += std::string(note.empty() ? "" : ", ") + "extrapolated";
    }
    row.push_back(note);
    t.add(row);
  }
  return t;
}

Table step_breakdown_table(const Report& report) {
  Table t({"dim", "op", ">size", ">calls/step", ">per call us", ">per step us", "curve"});
  if (report.ranking.mappings.empty()) return t;
  for (const auto& e : report.ranking.mappings.front().ops) {
    std::string curve = e.missing ? "not measured" : std::string(to_string(e.how));
    if (!e.missing && e.source_dim != e.dim) curve += ", " + e.source_dim + "'s groups";
    t.add({e.dim, e.op, format_bytes(e.bytes), sig3(e.calls_per_step), e.missing ? "-" : sig3(e.per_call_us),
           e.missing ? "-" : sig3(e.step_us), curve});
  }
  return t;
}

std::vector<TitledTable> busbw_tables(const Report& report) {
  const std::string& timing = report.ranking.timing;
  std::map<std::tuple<int, int, std::string, std::string>, std::vector<const Curve*>> by_op;
  for (const auto& c : report.curves) {
    const auto& k = c.key;
    if (k.timing != timing || k.concurrency != "concurrent") continue;
    by_op[{dim_order(k.dim), op_order(k.op), k.dim, k.op}].push_back(&c);
  }
  std::vector<TitledTable> out;
  for (auto& [key, curves] : by_op) {
    std::sort(curves.begin(), curves.end(),
              [&](const Curve* a, const Curve* b) { return rank_of(report, a->key.mapping) < rank_of(report, b->key.mapping); });
    std::vector<std::string> headers = {">size"};
    for (const auto* c : curves) headers.push_back(">" + rank_label(report, c->key.mapping));
    Table t(headers);
    std::set<std::uint64_t> sizes;
    for (const auto* c : curves) {
      for (const auto& p : c->points) sizes.insert(p.bytes);
    }
    for (auto bytes : sizes) {
      std::vector<std::string> row = {format_bytes(bytes)};
      for (const auto* c : curves) {
        const auto p = std::find_if(c->points.begin(), c->points.end(), [&](const CurvePoint& q) { return q.bytes == bytes; });
        row.push_back(p == c->points.end() ? "-" : sig3(p->busbw_gbps));
      }
      t.add(row);
    }
    const std::string title =
        std::get<2>(key) + " " + std::get<3>(key) + ": busbw GB/s (groups of " + std::to_string(curves.front()->group_size) + ")";
    out.push_back({title, std::move(t)});
  }
  return out;
}

std::vector<std::string> borrowed_dims_lines(const Report& report) {
  std::vector<std::string> out;
  for (const auto& n : report.ranking.notes) {
    if (n.rfind("curves borrowed", 0) == 0) out.push_back(n);
  }
  return out;
}

Table spread_table(const Report& report) {
  Table t(
      {"mapping", "dim", "op", ">size", ">groups", ">min us", ">median us", ">max us", ">max/min", "slowest group (ranks)", "its hosts"});
  std::vector<const GroupSpread*> rows;
  for (const auto& s : report.largest_spreads) {
    if (s.point.timing == report.ranking.timing && s.point.concurrency == "concurrent") rows.push_back(&s);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const GroupSpread* a, const GroupSpread* b) {
    const int ra = rank_of(report, a->point.mapping), rb = rank_of(report, b->point.mapping);
    if (ra != rb) return ra < rb;
    if (a->point.dim != b->point.dim) return dim_order(a->point.dim) < dim_order(b->point.dim);
    return op_order(a->point.op) < op_order(b->point.op);
  });
  for (const auto* s : rows) {
    const auto& k = s->point;
    t.add({rank_label(report, k.mapping) + " " + k.mapping, k.dim, k.op, format_bytes(k.bytes), std::to_string(s->groups), sig3(s->min_us),
           sig3(s->median_us), sig3(s->max_us), fixed(s->spread, 2),
           "g" + std::to_string(s->slowest_group) + " [" + join(to_strings(s->slowest_ranks), ",") + "]", join(s->slowest_hosts, ",", 4)});
  }
  return t;
}

std::vector<std::string> worst_spread_lines(const Report& report, std::size_t count) {
  std::vector<const GroupSpread*> rows;
  for (const auto& s : report.spreads) {
    if (s.groups >= 2 && s.point.concurrency == "concurrent") rows.push_back(&s);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const GroupSpread* a, const GroupSpread* b) { return a->spread > b->spread; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < rows.size() && i < count; ++i) {
    const auto* s = rows[i];
    const auto& k = s->point;
    out.push_back(fixed(s->spread, 2) + "x  " + k.mapping + " " + k.dim + " " + k.op + " " + format_bytes(k.bytes) + " " + k.timing +
                  ": slowest g" + std::to_string(s->slowest_group) + " on " + join(s->slowest_hosts, ",", 4) + " (" + sig3(s->max_us) +
                  " us vs fastest " + sig3(s->min_us) + " us)");
  }
  return out;
}

std::vector<std::string> slow_host_lines(const Report& report) {
  std::vector<std::string> out;
  if (report.run.hosts.size() < 2) {
    out.push_back("one host: the spread is between groups on it (cores, PCIe/NVLink paths), not between nodes");
    return out;
  }
  if (report.slow_hosts.empty()) {
    out.push_back("no host stands out: where groups differ, the slowest and fastest share their hosts");
    return out;
  }
  for (const auto& h : report.slow_hosts) {
    out.push_back(h.host + ": in the slowest group (and not the fastest) at " + std::to_string(h.slowest_only) + " of " +
                  std::to_string(h.points) + " points, worst spread " + fixed(h.worst_spread, 2) + "x");
  }
  return out;
}

Table prediction_table(const PredictionCheck& check) {
  if (check.like_for_like) {
    Table t({"mapping", "dim", ">predicted us", ">measured us", ">measured/predicted", ">predicted rank", ">measured rank"});
    for (const auto& r : check.rows) {
      const bool step = r.dim == "step";
      t.add({r.mapping, r.dim, sig3(r.predicted_us), r.measured > 0 ? sig3(r.measured) : "-",
             r.measured > 0 ? fixed(r.measured / r.predicted_us, 2) : "-", step && r.predicted_rank > 0 ? rank_text(r.predicted_rank) : "",
             step && r.measured_rank > 0 ? rank_text(r.measured_rank) : ""});
    }
    return t;
  }
  Table t({"mapping", ">predicted step us", ">measured", ">predicted rank", ">measured rank"});
  for (const auto& r : check.rows) {
    if (r.dim != "step") continue;
    t.add({r.mapping, sig3(r.predicted_us), r.measured > 0 ? sig3(r.measured) : "-",
           r.predicted_rank > 0 ? rank_text(r.predicted_rank) : "-", r.measured_rank > 0 ? rank_text(r.measured_rank) : "-"});
  }
  return t;
}

std::vector<std::string> apply_lines(const ApplyHint& h) {
  std::vector<std::string> out;
  // The mapping module's Megatron advice, as `plan --export` writes it.
  for (const auto& l : split_lines(h.megatron)) {
    if (l.rfind("# meshbench plan export:", 0) == 0) continue;  // names the plan's predicted rank, not the measured one
    out.push_back(l.rfind("# ", 0) == 0 ? l.substr(2) : "Megatron-LM: " + l);
  }
  if (!h.needs_placement()) {
    out.push_back("placement: rank r on slot r (srun's block distribution, mpirun --map-by slot) with order " + h.pure_order +
                  " gives this mapping's groups: no rankfile needed");
  } else {
    out.push_back("placement: rank r must run where the mapping puts it:");
    out.push_back("  Open MPI rankfile (mpirun --rankfile FILE): " + join(h.rankfile, "; ", 4));
    out.push_back("  SLURM_HOSTFILE (srun --distribution=arbitrary): " + join(h.slurm_hostfile, " ", 8));
    if (!h.cuda_visible_devices.empty()) {
      std::vector<std::string> cvd;
      for (const auto& [host, order] : h.cuda_visible_devices) cvd.push_back(host + ":" + order);
      out.push_back("  CUDA_VISIBLE_DEVICES per node (local rank i uses the i-th): " + join(cvd, " ", 4));
    }
  }
  out.push_back("--export DIR writes rankfile, slurm_hostfile, megatron_args.txt (and cuda_visible_devices.txt/.sh for GPUs); plan: " +
                h.plan_source);
  return out;
}

std::vector<std::string> transport_lines(const Report& report) {
  std::map<std::pair<std::string, std::string>, std::string> by_dim;
  for (const auto& t : report.transports) {
    auto& s = by_dim[{t.mapping, t.dim}];
    s += (s.empty() ? "" : ", ") + t.transport + " on " + std::to_string(t.ranks) + " rank" + (t.ranks == 1 ? "" : "s");
  }
  std::vector<std::string> out;
  for (const auto& [key, text] : by_dim) out.push_back(rank_label(report, key.first) + " " + key.first + " " + key.second + ": " + text);
  return out;
}

Table wrong_table(const Report& report) {
  Table t({"mapping", "dim", "op", ">size", "timing", ">wrong elements"});
  for (const auto& w : report.wrong) {
    const auto& p = w.point;
    t.add({p.mapping, p.dim, p.op, format_bytes(p.bytes), p.timing, std::to_string(w.wrong)});
  }
  return t;
}

}  // namespace meshbench::analysis::detail
