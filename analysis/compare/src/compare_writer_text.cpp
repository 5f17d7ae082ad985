// A comparison for people (text, Markdown): provenance first, then the levels from the whole run
// down to single points, each with its evidence. One writer for every form of compare.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <ostream>

#include "analysis/compare/compare_writers.hpp"
#include "analysis/compare/src/compare_json.hpp"
#include "analysis/compare/src/p_value_text.hpp"
#include "analysis/compare/src/provenance_writer.hpp"
#include "analysis/report/report_sink.hpp"
#include "analysis/report/text_table.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis {

namespace {

using detail::Sink;

std::string pct(double log_ratio) { return percent_change(std::exp(log_ratio)); }
std::string verdict_text(const UnitFinding& u) {
  std::string v = to_string(u.verdict);
  if (u.unconfirmed) v += " (not confirmed)";
  return v;
}

// A ratio for the reach table, or "never" for an infinite log.
std::string reach_text(double log_ratio) { return std::isfinite(log_ratio) ? pct(log_ratio) : std::string("never"); }

// Families that did not come out unchanged, largest level first, largest effect first.
std::vector<std::size_t> notable_families(const Comparison& c) {
  std::vector<std::size_t> out;
  for (std::size_t f = 0; f < c.families.size(); ++f) {
    if (c.result.families[f].verdict != Verdict::unchanged) out.push_back(f);
  }
  std::stable_sort(out.begin(), out.end(), [&c](std::size_t a, std::size_t b) {
    if (c.families[a].kind != c.families[b].kind) return c.families[a].kind > c.families[b].kind;
    return c.result.families[a].effect > c.result.families[b].effect;
  });
  return out;
}

void write_runs(const Comparison& c, Sink& s) {
  s.line("baseline: " + std::to_string(c.base.size()) + " run(s); new: " + std::to_string(c.next.size()) + " run(s)");
  const auto state = [](const RunSide& r) {
    return r.core_to_core_ns > 0 ? ", core-to-core " + std::to_string(std::lround(r.core_to_core_ns)) + " ns" : std::string();
  };
  for (const auto& b : c.base)
    s.bullet("base " + b.path + " (" + b.started_at + ", " + std::to_string(b.world) + " ranks, " + b.status + state(b) + ")");
  for (const auto& n : c.next)
    s.bullet("new  " + n.path + " (" + n.started_at + ", " + std::to_string(n.world) + " ranks, " + n.status + state(n) + ")");
  for (const auto& b : c.set_aside)
    s.bullet("set aside " + b.path + " (" + b.started_at + state(b) + "): measured in another machine state than the new runs");
  for (const auto& n : c.next_set_aside)
    s.bullet("set aside new " + n.path + " (" + n.started_at + state(n) + "): no baseline shares its machine state");
  if (!c.history.empty()) {
    s.line("history: " + std::to_string(c.history.size()) + " earlier run(s), started " + c.history.front().started_at + " to " +
           c.history.back().started_at + "; " + std::to_string(c.result.history_jumps) +
           " step(s) between them left out as whole-run jumps (the whole run moved beyond 5 sigmas of its steps: a slow or fast spell "
           "starting or ending)");
  }
}

void write_points_method(const Comparison& c, Sink& s) {
  s.line(
      "one run on each side: each point is judged against how the other points of its whole run moved between the two runs "
      "(its log ratio less the run's median, against their robust spread and the tail they show) and by a one-sided Mann-Whitney U "
      "test of its samples in each run (autocorrelation-corrected); each family against the other points and how the other "
      "families moved; the whole run's median move against its points' scatter. Regressed when slower by more than " +
      fixed(c.options.threshold * 100, 1) + "% and significant in every test (Benjamini-Hochberg FDR " + sig3(c.result.level_alpha) +
      " per level, " + sig3(c.options.alpha) +
      " over all); inconclusive when it moved by more than the threshold without that, or the scatter itself exceeds the "
      "threshold. One run a side cannot tell a machine's slow spell from a slower build: a whole run that moved is at most "
      "inconclusive unless its points all moved far beyond their scatter; the gate recipe decides (docs/gate.md)");
  const auto untested =
      std::count_if(c.result.points.begin(), c.result.points.end(), [](const UnitFinding& u) { return !u.within_tested; });
  if (untested > 0) {
    s.line("note: " + std::to_string(untested) + " of " + std::to_string(c.points.size()) +
           " points had too few samples for the within-run test (no samples, or a batched point's few batches): judged by how they "
           "stand out alone");
  }
}

void write_method(const Comparison& c, Sink& s) {
  s.heading("method");
  if (c.noise == NoiseSource::points) {
    write_points_method(c, s);
    return;
  }
  if (const int bare = c.points_without_rounds(); bare > 0) {
    s.line("note: " + std::to_string(bare) + " of " + std::to_string(c.points.size()) +
           " points come from runs without rounds, so their noise rests on the baseline pairs alone; measure gate runs with "
           "run --rounds 3 (docs/report.md, \"Baseline sets on this machine\")");
  }
  const std::string set_noise = c.history.empty()
                                    ? "how it varied between the " + std::to_string(c.base.size()) +
                                          " baseline runs (robust pairwise spread of log medians, shrunk towards its level's pooled spread)"
                                    : "how it varied between successive runs of the history of " + std::to_string(c.history.size()) +
                                          " (robust spread of their differences, shrunk towards its level's pooled spread)";
  const std::string adjacent = "its " + std::to_string(c.pairs) +
                               " differences between each new run and the baselines launched just before and after it in the same "
                               "machine state (the nearest of that state on each side; interleaved): the whole run ";
  std::string against = c.history.empty() ? set_noise + " and between rounds" : set_noise;
  if (c.options.interleaved && c.history.empty()) {
    against = adjacent + "against the robust spread of those differences, every other unit against " + set_noise +
              " pooled with how it varied between the rounds of every run, by their degrees of freedom";
  } else if (c.options.interleaved) {
    against = adjacent + "and every other unit against " + set_noise +
              "; the whole run's noise at least the robust spread of its own adjacent differences, and jumps counted in the history "
              "and between this set's baselines, whichever shows more";
  }
  s.line(std::string("each point and family is judged ") + (c.options.interleaved ? "on " : "against ") + against +
         "; "
         "regressed when slower by more than " +
         fixed(c.options.threshold * 100, 1) +
         "% and beyond that noise, both its own and how any unit of its level jumps (Benjamini-Hochberg FDR " + sig3(c.result.level_alpha) +
         " per level, " + sig3(c.options.alpha) +
         " over all); inconclusive when it moved by more than the threshold but not beyond the noise, or "
         "the noise itself exceeds the threshold" +
         std::string(c.options.confirm ? "; --confirm: a regression must stand alone in two new runs" : ""));
}

void write_reach(const Comparison& c, Sink& s) {
  s.heading("what this set can detect");
  s.line(
      "the smallest slowdown called a regression if it came alone (median over the level's units), and the size found 95% of the "
      "time; a target below these needs more baseline runs, more rounds or a quieter machine (docs/report.md, \"What a set can "
      "detect\")");
  Table reach({"level", ">units", ">called from", ">found 95% from"});
  for (auto kind : {UnitKind::point, UnitKind::op_size, UnitKind::collective, UnitKind::dimension, UnitKind::run}) {
    const auto r = c.result.reach(kind);
    if (r.units > 0) reach.add({to_string(kind), std::to_string(r.units), reach_text(r.called), reach_text(r.found_95)});
  }
  s.table(reach);
}

// When a whole run moved, its points moved with it and none stands out: these lines still name
// what moved, per dimension and op, with the sizes and the median change (medians over each side's runs).
void write_moved_ops(const Comparison& c, const std::string& timing, Sink& s) {
  struct Moved {
    std::uint64_t smallest = UINT64_MAX, largest = 0;
    std::vector<double> ratios;
  };
  std::map<std::pair<std::string, std::string>, Moved> by_op;
  for (const auto& p : c.points) {
    if (p.point.timing != timing || !(p.base_median_us > 0)) continue;
    auto& m = by_op[{p.point.dim, p.point.op}];
    m.smallest = std::min(m.smallest, p.point.bytes);
    m.largest = std::max(m.largest, p.point.bytes);
    m.ratios.push_back(p.new_median_us / p.base_median_us);
  }
  for (auto& [key, m] : by_op) {
    std::sort(m.ratios.begin(), m.ratios.end());
    const std::string sizes = m.smallest == m.largest ? format_bytes(m.smallest) : format_bytes(m.smallest) + "-" + format_bytes(m.largest);
    s.bullet(timing + ": " + key.first + " " + key.second + " " + sizes + ": " + percent_change(median_of(m.ratios)) + " (median of " +
             std::to_string(m.ratios.size()) + " points, " + percent_change(m.ratios.front()) + " to " + percent_change(m.ratios.back()) +
             ")");
  }
}

void write_whole_run(const Comparison& c, Sink& s) {
  Table whole({"", "timing", "concurrency", ">points", ">change", ">noise (1 sd)", ">z", ">q", "new runs slower"});
  for (std::size_t f = 0; f < c.families.size(); ++f) {
    if (c.families[f].kind != UnitKind::run) continue;
    const auto& u = c.result.families[f];
    whole.add({verdict_text(u), c.families[f].timing, c.families[f].concurrency, std::to_string(c.families[f].points), pct(u.effect),
               "±" + fixed(u.noise * 100, 1) + "%", fixed(u.z, 1), p_text(u.q_slower),
               std::to_string(u.runs_slower) + "/" + std::to_string(c.next.size())});
  }
  s.heading("the whole run");
  s.table(whole);
  for (std::size_t f = 0; f < c.families.size(); ++f) {
    if (c.families[f].kind == UnitKind::run && c.result.families[f].verdict != Verdict::unchanged)
      write_moved_ops(c, c.families[f].timing, s);
  }
  for (std::size_t f = 0; f < c.families.size(); ++f) {
    if (c.families[f].kind == UnitKind::run && c.result.families[f].verdict == Verdict::regressed) {
      s.line(
          "WHOLE RUN REGRESSION: every point moved together beyond the whole run's noise; the changes listed above are the first suspects");
      break;
    }
  }
}

void write_families(const Comparison& c, Sink& s) {
  const auto notable = notable_families(c);
  s.heading("families not unchanged: " + std::to_string(notable.size()) + " of " + std::to_string(c.families.size()));
  if (!notable.empty()) {
    Table t({"", "level", "family", "timing", ">points", ">change", ">noise", ">z", ">q"});
    for (auto f : notable) {
      const auto& u = c.result.families[f];
      t.add({verdict_text(u), to_string(c.families[f].kind), c.families[f].name(), c.families[f].timing,
             std::to_string(c.families[f].points), pct(u.effect), "±" + fixed(u.noise * 100, 1) + "%", fixed(u.z, 1),
             p_text(u.effect >= 0 ? u.q_slower : u.q_faster)});
    }
    s.table(t);
  }
}

void write_points(const Comparison& c, Sink& s) {
  std::vector<std::size_t> moved;
  for (std::size_t p = 0; p < c.points.size(); ++p) {
    const auto v = c.result.points[p].verdict;
    if (v == Verdict::regressed || v == Verdict::improved) moved.push_back(p);
  }
  std::stable_sort(moved.begin(), moved.end(),
                   [&c](std::size_t a, std::size_t b) { return c.result.points[a].effect > c.result.points[b].effect; });
  s.heading("points regressed or improved: " + std::to_string(moved.size()) + " of " + std::to_string(c.points.size()) + " (" +
            std::to_string(c.result.count(UnitKind::point, Verdict::inconclusive)) + " inconclusive)");
  if (!moved.empty()) {
    Table t({"", "mapping", "dim", "op", ">size", "timing", ">base us", ">new us", ">change", ">noise", ">q"});
    for (auto p : moved) {
      const auto& pt = c.points[p];
      const auto& u = c.result.points[p];
      t.add({verdict_text(u), pt.point.mapping, pt.point.dim, pt.point.op, format_bytes(pt.point.bytes), pt.point.timing,
             sig3(pt.base_median_us), sig3(pt.new_median_us), pct(u.effect), "±" + fixed(u.noise * 100, 1) + "%",
             p_text(u.effect >= 0 ? u.q_slower : u.q_faster)});
    }
    s.table(t);
  }
  for (const auto& pt : c.points) {
    if (pt.wrong())
      s.bullet("WRONG results: " + pt.point.mapping + " " + pt.point.dim + " " + pt.point.op + " at " + format_bytes(pt.point.bytes) +
               " (" + pt.point.timing + "): " + std::to_string(pt.new_wrong) + " wrong elements in a new run, none in the baselines");
  }
  if (c.only_base > 0) s.bullet(std::to_string(c.only_base) + " point(s) of the first baseline are missing from another run: not compared");
  if (c.only_new > 0) s.bullet(std::to_string(c.only_new) + " point(s) of the first new run are not in every baseline: not compared");
  for (const auto& r : c.renamed) s.bullet("same structure, another name: " + r);
  for (const auto& r : c.restructured) s.bullet("same name, another structure (not compared): " + r);
}

void write_verdict(const Comparison& c, Sink& s) {
  bool whole_run = false;
  for (std::size_t f = 0; f < c.families.size(); ++f) {
    whole_run = whole_run || (c.families[f].kind == UnitKind::run && c.result.families[f].verdict == Verdict::regressed);
  }
  switch (c.gate_verdict()) {
    case GateVerdict::clean: s.line("verdict: no regression (exit status 0)"); break;
    case GateVerdict::regression:
      s.line(whole_run ? "verdict: REGRESSION of the whole run (exit status 1)" : "verdict: REGRESSION (exit status 1)");
      break;
    case GateVerdict::inconclusive:
      s.line(c.state_differs ? "verdict: INCONCLUSIVE (exit status 3): the new runs were measured in another machine state; rerun them "
                               "in the baselines' state"
                             : "verdict: INCONCLUSIVE (exit status 3): the whole run's noise or move is beyond the threshold without "
                               "significance; more baseline and new runs decide (docs/gate.md)");
      break;
  }
}

void write_text(const Comparison& c, std::ostream& out, bool markdown) {
  Sink s(out, markdown);
  s.title("meshbench compare");
  write_runs(c, s);
  s.line("summary: " + c.headline());
  detail::write_provenance_changes(s, "what changed (first baseline against first new run)", c.changes, c.hidden_changes, "");
  write_method(c, s);
  write_reach(c, s);
  write_whole_run(c, s);
  write_families(c, s);
  write_points(c, s);
  s.line("");
  write_verdict(c, s);
}

}  // namespace

void TextCompareWriter::write(const Comparison& c, std::ostream& out) const { write_text(c, out, false); }
void MarkdownCompareWriter::write(const Comparison& c, std::ostream& out) const { write_text(c, out, true); }

}  // namespace meshbench::analysis
