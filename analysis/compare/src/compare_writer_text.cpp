// Console and Markdown forms of a comparison: provenance changes first, then the changed rows.
#include <algorithm>
#include <cmath>
#include <map>
#include <ostream>
#include <tuple>

#include "analysis/compare/compare_writers.hpp"
#include "analysis/compare/regression_stats.hpp"
#include "analysis/compare/src/p_value_text.hpp"
#include "analysis/compare/src/provenance_writer.hpp"
#include "analysis/report/report_sink.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis {

namespace {

using detail::Sink;

std::string side_line(const RunSide& s) {
  return s.path + " (" + s.started_at + ", " + std::to_string(s.world) + " ranks, " + s.backend + ", " + s.status + ")";
}

std::string interval_text(const RowComparison& r) {
  if (r.interval.high <= 0) return "-";
  return percent_change(r.interval.low) + ".." + percent_change(r.interval.high);
}

Table rows_table(const std::vector<const RowComparison*>& rows, bool slower) {
  Table t({"mapping", "dim", "op", ">size", "timing", ">base us", ">new us", ">change", ">95% CI", ">q", ">samples"});
  for (const auto* r : rows) {
    std::string mapping = r->new_mapping == r->point.mapping ? r->new_mapping : r->point.mapping + " = " + r->new_mapping;
    std::string q = r->tested ? p_text(slower ? r->q_slower : r->q_faster) : "untested";
    std::string change = percent_change(r->ratio);
    if (r->verdict == Verdict::wrong) change = "WRONG (" + std::to_string(r->new_wrong) + ")";
    t.add({mapping, r->point.dim, r->point.op, format_bytes(r->point.bytes), r->point.timing, sig3(r->base_median_us),
           sig3(r->new_median_us), change, interval_text(*r), q, std::to_string(r->base_samples) + "/" + std::to_string(r->new_samples)});
  }
  return t;
}

std::string tail_name(const Scatter& s) {
  if (s.tail_nu <= 0) return "normal tails";
  return "heavy tails (t" + fixed(s.tail_nu, 0) + ")";
}

// When a whole run moved, no point stands out from the others and none is flagged alone: these
// lines still name what moved, per dimension and op, with the sizes and the median change.
std::vector<std::string> moved_ops_lines(const Comparison& c, const std::string& timing) {
  struct Moved {
    std::uint64_t smallest = UINT64_MAX, largest = 0;
    std::vector<double> ratios;
  };
  std::map<std::tuple<std::string, std::string>, Moved> by_op;
  for (const auto& r : c.rows) {
    if (r.point.timing != timing || !(r.ratio > 0)) continue;
    auto& m = by_op[{r.point.dim, r.point.op}];
    m.smallest = std::min(m.smallest, r.point.bytes);
    m.largest = std::max(m.largest, r.point.bytes);
    m.ratios.push_back(r.ratio);
  }
  std::vector<std::string> out;
  for (auto& [key, m] : by_op) {
    std::sort(m.ratios.begin(), m.ratios.end());
    const std::size_t n = m.ratios.size();
    const double median = median_of(m.ratios);
    const std::string sizes = m.smallest == m.largest ? format_bytes(m.smallest) : format_bytes(m.smallest) + "-" + format_bytes(m.largest);
    out.push_back(std::get<0>(key) + " " + std::get<1>(key) + " " + sizes + ": " + percent_change(median) + " (median of " +
                  std::to_string(n) + " points, " + percent_change(m.ratios.front()) + " to " + percent_change(m.ratios.back()) + ")");
  }
  return out;
}

// How all points moved between the runs: what rerunning one configuration does on this machine,
// and what a point must stand out from.
std::vector<std::string> scatter_lines(const Comparison& c) {
  std::vector<std::string> out;
  for (const auto& t : c.scatter) {
    if (!t.scatter.estimated) {
      out.push_back(t.timing + ": too few points (" + std::to_string(t.scatter.points) +
                    ") to tell how runs move; the within-run test alone decides");
      continue;
    }
    std::string line = t.timing + ": the points moved by " + percent_change(t.shift_ratio) + " (median) and scatter ±" +
                       fixed((std::exp(t.scatter.sigma) - 1) * 100, 1) + "% around it (robust sigma, " + tail_name(t.scatter) + ", " +
                       std::to_string(t.scatter.points) + " points)";
    if (t.verdict == Verdict::regressed)
      line += ": the WHOLE RUN IS SLOWER (a change that slows everything, clocks, or a busier machine; rerun both to tell)";
    if (t.verdict == Verdict::improved) line += ": the whole run is faster";
    if (t.verdict == Verdict::inconclusive)
      line += t.shift_ratio > 1 ? ": the whole run is slower beyond the threshold, but not beyond the points' scatter (inconclusive)"
                                : ": the whole run is faster beyond the threshold, but not beyond the points' scatter (inconclusive)";
    out.push_back(line);
    if (t.verdict != Verdict::unchanged) {
      for (const auto& l : moved_ops_lines(c, t.timing)) out.push_back(t.timing + ": " + l);
    }
  }
  return out;
}

std::vector<const RowComparison*> select(const Comparison& c, bool regressions) {
  std::vector<const RowComparison*> out;
  for (const auto& r : c.rows) {
    const bool bad = r.verdict == Verdict::regressed || r.verdict == Verdict::wrong;
    if (regressions ? bad : r.verdict == Verdict::improved) out.push_back(&r);
  }
  std::stable_sort(out.begin(), out.end(), [regressions](const RowComparison* a, const RowComparison* b) {
    return regressions ? a->ratio > b->ratio : a->ratio < b->ratio;
  });
  return out;
}

void write_comparison(const Comparison& c, std::ostream& out, bool markdown) {
  Sink s(out, markdown);
  s.title("meshbench compare");
  s.line("base: " + side_line(c.base));
  s.line("new:  " + side_line(c.next));
  s.line("summary: " + c.headline());

  detail::write_provenance_changes(s, "what changed between the runs", c.changes, c.hidden_changes, ": job ids, ports, URIs, ranks");

  const int compared = static_cast<int>(c.rows.size());
  const auto bad = select(c, true), good = select(c, false);
  const std::string rule = "a point is flagged when slower by more than " + fixed(c.options.threshold * 100, 1) +
                           "%, significant within the runs (one-sided Mann-Whitney U on the samples, autocorrelation-corrected) and "
                           "standing out from how all points moved (above); Benjamini-Hochberg FDR " +
                           fixed(c.options.alpha, 2) + " over " + std::to_string(compared) + " points for each";
  s.heading("how the runs moved as a whole");
  for (const auto& l : scatter_lines(c)) s.bullet(l);
  std::vector<const FamilyFinding*> families;
  for (const auto& f : c.families) {
    if (f.verdict != Verdict::unchanged) families.push_back(&f);
  }
  std::stable_sort(families.begin(), families.end(),
                   [](const FamilyFinding* a, const FamilyFinding* b) { return a->median_ratio > b->median_ratio; });
  s.heading("collectives and sizes whose points moved together: " + std::to_string(families.size()) + " of " +
            std::to_string(c.families.size()));
  s.line(
      "a family (one collective at every size, or one op and size in every dimension) is flagged when its median moved by more "
      "than the threshold and its points moved more than the others (one-sided Mann-Whitney U, Benjamini-Hochberg over families)");
  if (!families.empty()) {
    Table t({"", "family", "timing", ">points", ">median change", ">others", ">q"});
    for (const auto* f : families) {
      const bool slower = f->verdict == Verdict::regressed;
      t.add({slower ? "SLOWER" : "faster", f->name(), f->timing, std::to_string(f->points), percent_change(f->median_ratio),
             percent_change(f->rest_ratio), p_text(slower ? f->q_slower : f->q_faster)});
    }
    s.table(t);
  }
  s.heading("regressions: " + std::to_string(bad.size()) + " of " + std::to_string(compared) + " points");
  s.line(rule);
  if (!bad.empty()) s.table(rows_table(bad, true));
  s.heading("improvements: " + std::to_string(good.size()));
  if (!good.empty()) s.table(rows_table(good, false));

  s.heading("notes");
  const int untested = static_cast<int>(std::count_if(c.rows.begin(), c.rows.end(), [](const RowComparison& r) { return !r.tested; }));
  if (untested > 0) {
    s.bullet(std::to_string(untested) +
             " point(s) had too few samples for the within-run test (no samples, or a batched point's few batches):"
             " judged by the threshold and how they stand out alone");
  }
  if (c.only_base > 0 || c.only_new > 0) {
    s.bullet(std::to_string(c.only_base) + " point(s) only in base, " + std::to_string(c.only_new) + " only in new: not compared");
  }
  for (const auto& r : c.renamed) s.bullet("same mapping under another name: " + r);
  for (const auto& r : c.restructured) s.bullet("mapping " + r + " has other groups in the new run: its points are not compared by name");
  s.line("");
  switch (c.gate_verdict()) {
    case GateVerdict::clean: s.line("verdict: no regression (exit status 0)"); break;
    case GateVerdict::regression: s.line("verdict: REGRESSION (exit status 1)"); break;
    case GateVerdict::inconclusive:
      s.line(
          "verdict: INCONCLUSIVE (exit status 3): the whole run moved slower beyond the threshold, and one run on each side cannot tell "
          "the software's change from the machine's slow spell; run the gate recipe (docs/gate.md: baseline runs before the "
          "upgrade, new runs after, meshbench compare BASE... -- NEW...)");
      break;
  }
}

}  // namespace

void TextCompareWriter::write(const Comparison& c, std::ostream& out) const { write_comparison(c, out, false); }
void MarkdownCompareWriter::write(const Comparison& c, std::ostream& out) const { write_comparison(c, out, true); }

}  // namespace meshbench::analysis
