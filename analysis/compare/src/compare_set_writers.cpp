// A baseline-set comparison for people (text, Markdown) and for CI (JSON): provenance first,
// then the levels from the whole run down to single points, each with its evidence.
#include <algorithm>
#include <cmath>
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
using nlohmann::ordered_json;

std::string pct(double log_ratio) { return percent_change(std::exp(log_ratio)); }
// A log ratio as a ratio, or null when it is infinite (a slowdown no baseline set could call).
ordered_json ratio_or_null(double log_ratio) {
  return std::isfinite(log_ratio) ? ordered_json(std::exp(log_ratio)) : ordered_json(nullptr);
}

std::string verdict_text(const UnitFinding& u) {
  std::string v = to_string(u.verdict);
  if (u.unconfirmed) v += " (not confirmed)";
  return v;
}

ordered_json evidence_json(const UnitFinding& u) {
  const auto finite = [](double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(x > 0 ? 1e300 : -1e300); };
  return {{"verdict", to_string(u.verdict)},
          {"unconfirmed", u.unconfirmed},
          {"ratio", std::exp(u.effect)},
          {"effect_log", u.effect},
          {"noise_log", u.noise},
          {"sigma_run_log", u.sigma},
          {"sigma_own_log", u.own_sigma},
          {"sigma_rounds_log", u.round_sigma},
          {"z", finite(u.z)},
          {"p_slower", u.p_slower},
          {"q_slower", u.q_slower},
          {"p_faster", u.p_faster},
          {"q_faster", u.q_faster},
          {"new_runs_slower", u.runs_slower},
          {"detectable_ratio", ratio_or_null(u.detectable)}};
}

// A ratio for the reach table, or "never" for an infinite log.
std::string reach_text(double log_ratio) { return std::isfinite(log_ratio) ? pct(log_ratio) : std::string("never"); }

// Families that did not come out unchanged, largest level first, largest effect first.
std::vector<std::size_t> notable_families(const SetComparison& c) {
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

void write_runs(const SetComparison& c, Sink& s) {
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

void write_method(const SetComparison& c, Sink& s) {
  s.heading("method");
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

void write_reach(const SetComparison& c, Sink& s) {
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

void write_whole_run(const SetComparison& c, Sink& s) {
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
    if (c.families[f].kind == UnitKind::run && c.result.families[f].verdict == Verdict::regressed) {
      s.line(
          "WHOLE RUN REGRESSION: every point moved together beyond the noise between baseline runs; the changes listed above are the first "
          "suspects");
      break;
    }
  }
}

void write_families(const SetComparison& c, Sink& s) {
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

void write_points(const SetComparison& c, Sink& s) {
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
  if (c.skipped_points > 0)
    s.bullet(std::to_string(c.skipped_points) + " point(s) of the first baseline are missing from another run: not compared");
}

void write_verdict(const SetComparison& c, Sink& s) {
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

void write_text(const SetComparison& c, std::ostream& out, bool markdown) {
  Sink s(out, markdown);
  s.title("meshbench compare (baseline set)");
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

namespace {

ordered_json families_json(const SetComparison& c) {
  ordered_json out = ordered_json::array();
  for (std::size_t f = 0; f < c.families.size(); ++f) {
    const auto& fam = c.families[f];
    ordered_json o = {{"level", to_string(fam.kind)},
                      {"name", fam.name()},
                      {"timing", fam.timing},
                      {"concurrency", fam.concurrency},
                      {"dim", fam.dim},
                      {"op", fam.op},
                      {"bytes", fam.bytes},
                      {"points", fam.points}};
    o.update(evidence_json(c.result.families[f]));
    out.push_back(o);
  }
  return out;
}

}  // namespace

ordered_json set_comparison_to_json(const SetComparison& c) {
  const NoiseSource noise = c.history.empty() ? NoiseSource::baseline_runs : NoiseSource::history;
  ordered_json j =
      detail::comparison_head(c.gate_verdict(), noise, c.options.interleaved ? Pairing::interleaved : Pairing::none, c.headline());
  const auto sides = [](const std::vector<RunSide>& runs) {
    ordered_json a = ordered_json::array();
    for (const auto& r : runs) a.push_back(detail::run_side_json(r));
    return a;
  };
  j["base"] = sides(c.base);
  j["new"] = sides(c.next);
  j["options"] = {
      {"threshold", c.options.threshold},
      {"alpha", c.options.alpha},
      {"confirm", c.options.confirm},
      {"alpha_per_level", c.result.level_alpha},
      {"method", c.history.empty()
                     ? "log median per point and family against the baseline runs' median; noise from the robust pairwise spread between "
                       "baseline runs (shrunk towards the level's pooled spread) and the between-round spread; Benjamini-Hochberg per level"
                     : "log median per point and family against the baseline runs' median; noise from the robust spread of the "
                       "differences between successive history runs (shrunk towards the level's pooled spread); Benjamini-Hochberg "
                       "per level"}};
  std::vector<std::pair<UnitKind, Verdict>> units;
  for (std::size_t p = 0; p < c.points.size(); ++p)
    units.emplace_back(UnitKind::point, c.points[p].wrong() ? Verdict::wrong : c.result.points[p].verdict);
  for (std::size_t f = 0; f < c.families.size(); ++f) units.emplace_back(c.families[f].kind, c.result.families[f].verdict);
  j["counts"] = detail::verdict_counts(units);
  j["matching"] = {
      {"compared", c.points.size()}, {"skipped_points", c.skipped_points}, {"points_without_rounds", c.points_without_rounds()}};
  detail::add_provenance_changes(j, c.changes, c.hidden_changes);
  j["set_aside"] = sides(c.set_aside);
  j["new_set_aside"] = sides(c.next_set_aside);
  j["history"] = sides(c.history);
  j["history_jumps"] = c.result.history_jumps;
  j["state_differs"] = c.state_differs;
  if (c.options.interleaved) j["pairs"] = c.pairs;  // the (new, baseline) pairs judged; no pairs otherwise
  j["detectable"] = ordered_json::object();
  for (int k = 0; k < kUnitKinds; ++k) {
    const auto r = c.result.reach(static_cast<UnitKind>(k));
    if (r.units == 0) continue;
    j["detectable"][to_string(static_cast<UnitKind>(k))] = {
        {"units", r.units}, {"called_ratio", ratio_or_null(r.called)}, {"found_95_ratio", ratio_or_null(r.found_95)}};
  }
  j["tail_nu"] = ordered_json::object();
  for (int k = 0; k < kUnitKinds; ++k) j["tail_nu"][to_string(static_cast<UnitKind>(k))] = c.result.tail_nu[k];
  j["families"] = families_json(c);
  j["points"] = ordered_json::array();
  for (std::size_t p = 0; p < c.points.size(); ++p) {
    const auto& pt = c.points[p];
    ordered_json o = {{"mapping", pt.point.mapping},
                      {"dim", pt.point.dim},
                      {"op", pt.point.op},
                      {"backend", pt.backend},
                      {"dtype", pt.dtype},
                      {"timing", pt.point.timing},
                      {"concurrency", pt.point.concurrency},
                      {"bytes", pt.point.bytes},
                      {"base_median_us", pt.base_median_us},
                      {"new_median_us", pt.new_median_us},
                      {"rounds", pt.rounds},
                      {"base_wrong", pt.base_wrong},
                      {"new_wrong", pt.new_wrong}};
    o.update(evidence_json(c.result.points[p]));
    if (pt.wrong()) o["verdict"] = to_string(Verdict::wrong);
    j["points"].push_back(o);
  }
  return j;
}

void write_set_comparison(const SetComparison& c, OutputFormat format, std::ostream& out) {
  switch (format) {
    case OutputFormat::json: out << set_comparison_to_json(c).dump(2) << "\n"; return;
    case OutputFormat::markdown: write_text(c, out, true); return;
    case OutputFormat::text:
    case OutputFormat::csv: write_text(c, out, false); return;
  }
}

}  // namespace meshbench::analysis
