// Console and Markdown forms of the report: the same tables, with different headings.
#include <cmath>
#include <ostream>

#include "analysis/report/report_sink.hpp"
#include "analysis/report/report_writers.hpp"
#include "analysis/report/src/report_tables.hpp"

namespace meshbench::analysis {

namespace {

using namespace detail;

void write_io_section(const Report& r, Sink& s) {
  if (r.io.empty()) return;
  s.heading("Checkpoint I/O (meshbench io): write and read-back bandwidth, the whole launch's GB/s over the repeats");
  s.table(io_table(r.io));
  s.bullet(
      "reads: o_direct bypassed the page cache; fadvise_dontneed asked the kernel to drop it; cached is the share of the shard "
      "still in memory as the read began (100% on tmpfs: there the file is the cache)");
}

void write_report(const Report& r, std::ostream& out, bool markdown) {
  Sink s(out, markdown);
  s.title("meshbench report: " + r.run.path);
  s.line("run: " + run_line(r));
  s.line("layout: " + layout_line(r));
  if (r.run.rows == 0) {  // a file of meshbench io alone
    write_io_section(r, s);
    return;
  }
  if (!r.wrong.empty()) {
    s.heading("WRONG RESULTS: these points' checks counted wrong elements");
    s.table(wrong_table(r));
  }

  if (r.layouts) {
    s.heading("Layouts: each layout's best mapping by measured communication per step (" + r.ranking.workload_name +
              "), the explorer's estimate beside it");
    s.table(layouts_table(*r.layouts));
    if (!r.layouts->note.empty()) s.bullet(r.layouts->note);
  }
  s.heading("ML view: " + ranking_title(r));
  s.table(ranking_table(r));
  for (const auto& n : r.ranking.notes) s.bullet(n);
  if (r.ranking.basis == Ranking::Basis::workload && !r.ranking.mappings.empty()) {
    s.subheading("where the best mapping's step time goes (" + r.ranking.mappings.front().name + ")");
    s.table(step_breakdown_table(r));
  }
  if (r.best) {
    s.subheading("apply the best mapping (" + r.best->mapping + ")");
    for (const auto& l : apply_lines(*r.best)) s.line(l);
  }

  s.heading("Infrastructure view: busbw against size, " + r.ranking.timing + " concurrent medians (columns: mappings by rank)");
  for (const auto& l : borrowed_dims_lines(r)) s.bullet(l);
  for (const auto& t : busbw_tables(r)) {
    s.subheading(t.title);
    s.table(t.table);
  }
  s.subheading("% of expected: busbw against the cost model's for the hardware, " + r.ranking.timing + " medians");
  for (const auto& l : expected_intro_lines(r)) s.line(l);
  if (r.expected.known) {
    std::size_t left_out = 0;
    s.table(expected_table(r, 40, left_out));
    if (left_out > 0) s.bullet(std::to_string(left_out) + " more rows in --format csv or json");
    const auto below = expected_below_lines(r, 20);
    if (!below.empty()) s.line(below.front());
    for (std::size_t i = 1; i < below.size(); ++i) s.bullet(below[i]);
  }
  s.subheading("spread across groups at the largest size (min / median / max of the group medians)");
  s.table(spread_table(r));
  const auto worst = worst_spread_lines(r, 3);
  if (!worst.empty()) {
    s.subheading("largest spreads at any size");
    for (const auto& l : worst) s.bullet(l);
  }
  const auto transports = transport_lines(r);
  if (!transports.empty()) {
    s.subheading("transports NCCL used (run --nccl-debug)");
    for (const auto& l : transports) s.bullet(l);
  }
  if (r.nic.visits > 0) {
    s.subheading("NIC counters: bytes each host's NICs counted per visit against the op's bytes off the host (" +
                 std::to_string(r.nic.visits) + " visits)");
    std::size_t left_out = 0;
    s.table(nic_traffic_table(r, 40, left_out));
    if (left_out > 0) s.bullet(std::to_string(left_out) + " more rows in --format csv or json");
    for (const auto& n : r.nic.notes) s.bullet(n);
    const auto events = nic_event_lines(r);
    if (events.empty()) s.line("no retransmit, drop or error counted during any point");
    for (const auto& l : events) s.bullet("retransmits and drops: " + l);
  }
  s.subheading("slow hosts");
  for (const auto& l : slow_host_lines(r)) s.bullet(l);
  if (r.gpu_health.sampled) {
    s.subheading("GPU health while measuring (NVML), hosts beside their slow-group tally");
    for (const auto& l : throttled_point_lines(r)) s.bullet(l);
    s.table(gpu_host_table(r));
  }
  if (!r.gpu_health.host_copies.empty()) {
    s.subheading("host<->GPU copy bandwidth per slot (pinned memory, run --host-copies)");
    s.table(host_copy_table(r));
  }
  s.subheading("predicted against measured");
  if (r.predictions) {
    s.line(r.predictions->basis);
    s.table(prediction_table(*r.predictions));
    if (r.predictions->compared_mappings >= 2) {
      const double rho = r.predictions->rank_correlation;
      s.line("rank correlation (Spearman) of predicted and measured step order over " + std::to_string(r.predictions->compared_mappings) +
             " mappings: " + (std::isfinite(rho) ? fixed(rho, 2) : std::string("none (the plan predicts every mapping equal)")));
    }
  } else {
    s.line("the plan made no prediction for these mappings");
  }
  if (r.accuracy && !r.accuracy->predictors.empty()) {
    const auto& a = *r.accuracy;
    s.subheading("prediction accuracy: the cost model against the " + a.timing + " medians");
    for (const auto& p : a.predictors) s.bullet(p.name + ": " + p.source);
    s.line(a.basis);
    s.line("error: median / p90 of |predicted - measured| / measured (points)");
    s.table(accuracy_summary_table(a));
    s.subheading("prediction accuracy per dimension");
    s.table(accuracy_dims_table(a));
    s.subheading("prediction accuracy per mapping (" + std::string(a.per_step ? "us per step" : "sum over the common points, us") + ")");
    s.table(accuracy_mappings_table(a));
    for (const auto& n : a.notes) s.bullet(n);
  }
  write_io_section(r, s);
}

}  // namespace

void TextReportWriter::write(const Report& report, std::ostream& out) const { write_report(report, out, false); }
void MarkdownReportWriter::write(const Report& report, std::ostream& out) const { write_report(report, out, true); }

}  // namespace meshbench::analysis
