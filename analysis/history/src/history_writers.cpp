#include "analysis/history/history_writers.hpp"

#include <ostream>

#include "analysis/report/report_sink.hpp"
#include "analysis/report/text_table.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis {

namespace {

std::string changes_text(const std::vector<ProvenanceChange>& changes) {
  return changes.empty() ? "nothing recorded changed" : changes_in_brief(changes, 3);
}

// Why "no change" from these runs says nothing.
std::string blind_text(const History& h, const ConfigurationHistory& c) {
  const auto& o = h.options.change_points;
  return "with " + std::to_string(c.runs.size()) + " runs no step of " + std::to_string(o.min_segment) +
         " runs at either end can reach p <= " + sig3(o.p_value) + ": the smallest reachable p-value is " + sig3(c.smallest_reachable_p) +
         "; " + std::to_string(h.runs_needed()) + " runs are needed (or --min-runs larger, or --p-value larger)";
}

void write_human(const History& h, std::ostream& out, bool markdown) {
  detail::Sink s(out, markdown);
  s.title("meshbench history");
  const auto& o = h.options.change_points;
  s.line("change points by E-Divisive means: permutation p <= " + sig3(o.p_value) + " (" + std::to_string(o.permutations) +
         " shuffles), at least " + std::to_string(o.min_segment) + " runs on each side, medians at least " +
         percent_change(1 + o.min_change) + " apart");
  for (const auto& c : h.configurations) {
    s.heading(c.layout + " on " + c.topology + ": " + std::to_string(c.runs.size()) + " run(s)");
    Table runs({">run", "started", "status", "backend", "file"});
    for (std::size_t i = 0; i < c.runs.size(); ++i) {
      runs.add({std::to_string(i + 1), c.runs[i].started_at, c.runs[i].status, c.runs[i].backend, c.runs[i].path});
    }
    s.table(runs);
    if (c.runs.size() < static_cast<std::size_t>(2 * o.min_segment)) {
      s.line("too few runs to find a change: " + std::to_string(2 * o.min_segment) + " are needed (" + std::to_string(o.min_segment) +
             " on each side); " + std::to_string(h.runs_needed()) + " for a step of " + std::to_string(o.min_segment) +
             " runs to reach p <= " + sig3(o.p_value));
      continue;
    }
    s.line(std::to_string(c.series.size()) + " series (points and families), " + std::to_string(c.changed_series()) + " with a change" +
           (c.points_not_in_every_run > 0 ? "; " + std::to_string(c.points_not_in_every_run) + " point(s) not in every run left out" : ""));
    Table changed({"series", ">from run", ">change", ">p", "what changed between the runs"});
    for (const auto& series : c.series) {
      for (const auto& ch : series.changes) {
        changed.add({series.name(), std::to_string(ch.point.index + 1), percent_change(ch.ratio), sig3(ch.point.p_value),
                     changes_text(ch.changes)});
      }
    }
    if (!changed.empty()) s.table(changed);
    if (c.smallest_reachable_p > o.p_value) s.line(blind_text(h, c));
  }
  s.line("");
  if (h.searched_series() == 0) {
    s.line("no series searched: every configuration has too few runs");
  } else if (h.changed_series() == 0) {
    s.line("no change point in " + std::to_string(h.searched_series()) + " series");
  } else {
    s.line(std::to_string(h.changed_series()) + " of " + std::to_string(h.searched_series()) + " series changed, " +
           std::to_string(h.slower_series()) + " to slower");
  }
  switch (h.gate_verdict()) {
    case GateVerdict::clean: s.line("verdict: no regression (exit status 0)"); break;
    case GateVerdict::regression: s.line("verdict: REGRESSION (exit status 1)"); break;
    case GateVerdict::inconclusive:
      s.line("verdict: INCONCLUSIVE (exit status 3): too few runs to see a change at the p-value asked for; " +
             std::to_string(h.runs_needed()) + " runs are needed");
      break;
  }
}

nlohmann::ordered_json change_to_json(const SeriesChange& c) {
  nlohmann::ordered_json changes = nlohmann::ordered_json::array();
  for (const auto& ch : c.changes) changes.push_back({{"kind", ch.kind}, {"name", ch.name}, {"before", ch.before}, {"after", ch.after}});
  return {{"run", c.point.index + 1},      {"ratio", c.ratio},
          {"p_value", c.point.p_value},    {"run_before", c.run_before},
          {"run_after", c.run_after},      {"started", c.started_after},
          {"provenance_changes", changes}, {"provenance_brief", changes_in_brief(c.changes, 3)}};
}

}  // namespace

nlohmann::ordered_json history_to_json(const History& h) {
  const auto& o = h.options.change_points;
  nlohmann::ordered_json configs = nlohmann::ordered_json::array();
  for (const auto& c : h.configurations) {
    nlohmann::ordered_json runs = nlohmann::ordered_json::array();
    for (const auto& r : c.runs)
      runs.push_back({{"path", r.path}, {"started_at", r.started_at}, {"status", r.status}, {"backend", r.backend}});
    nlohmann::ordered_json series = nlohmann::ordered_json::array();
    for (const auto& s : c.series) {
      nlohmann::ordered_json changes = nlohmann::ordered_json::array();
      for (const auto& ch : s.changes) changes.push_back(change_to_json(ch));
      series.push_back({{"name", s.name()},
                        {"kind", to_string(s.family.kind)},
                        {"mapping", s.mapping},
                        {"dim", s.family.dim},
                        {"op", s.family.op},
                        {"bytes", s.family.bytes},
                        {"timing", s.family.timing},
                        {"concurrency", s.family.concurrency},
                        {"points", s.family.points},
                        {"values", s.values},
                        {"changes", changes}});
    }
    configs.push_back({{"layout", c.layout},
                       {"topology", c.topology},
                       {"runs", runs},
                       {"smallest_reachable_p", c.smallest_reachable_p},
                       {"points_not_in_every_run", c.points_not_in_every_run},
                       {"series", series}});
  }
  const GateVerdict verdict = h.gate_verdict();
  return {{"schema", "meshbench.history"},
          {"schema_version", kHistoryJsonVersion},
          {"verdict", to_string(verdict)},
          {"exit_status", exit_status(verdict)},
          {"runs_needed", h.runs_needed()},
          {"method",
           {{"name", "e-divisive means"},
            {"p_value", o.p_value},
            {"permutations", o.permutations},
            {"min_segment", o.min_segment},
            {"min_change", o.min_change},
            {"seed", o.seed}}},
          {"series", h.series()},
          {"searched_series", h.searched_series()},
          {"changed_series", h.changed_series()},
          {"slower_series", h.slower_series()},
          {"configurations", configs}};
}

void write_history(const History& h, OutputFormat format, std::ostream& out) {
  if (format == OutputFormat::json) {
    out << history_to_json(h).dump(2) << "\n";
    return;
  }
  write_human(h, out, format == OutputFormat::markdown);
}

}  // namespace meshbench::analysis
