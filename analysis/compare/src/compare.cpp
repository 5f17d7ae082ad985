#include "analysis/compare/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/report/text_table.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis {

std::string Family::name() const {
  switch (kind) {
    case UnitKind::op_size: return op + " at " + format_bytes(bytes);
    case UnitKind::collective: return dim + " " + op + " (every size)";
    case UnitKind::dimension: return "dimension " + dim;
    case UnitKind::run:
    case UnitKind::point: break;
  }
  return "whole run";
}

double core_to_core_ns(const results::ResultsFile& f) {
  std::vector<double> kept;
  for (const auto& s : f.state_probes()) {
    if (s.kept && s.core_to_core_ns > 0) kept.push_back(s.core_to_core_ns);
  }
  if (kept.empty()) return 0.0;
  // The upper quartile, not the median: a run that began in a far spell keeps those visits (its
  // best was far then, so nothing looked disturbed) and spends the rest near. Its median reads
  // near while up to half its points were measured far: such runs were 11-16% slower as a whole
  // than runs measured near throughout (docs/report.md, "Machine state").
  std::sort(kept.begin(), kept.end());
  return kept[(3 * kept.size() + 3) / 4 - 1];
}

RunSide run_side(const results::ResultsFile& f) {
  return {f.path(), f.run().started_at, f.run().status, f.run().backend, f.run().meshbench_version, f.run().world_size, core_to_core_ns(f)};
}

bool machine_states_differ(double a_ns, double b_ns) {
  if (a_ns <= 0 || b_ns <= 0) return false;
  return std::max(a_ns, b_ns) > kMachineStateFactor * std::min(a_ns, b_ns);
}

std::string changes_in_brief(const std::vector<ProvenanceChange>& changes, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < changes.size() && i < shown; ++i) {
    out += (out.empty() ? "" : ", ") + changes[i].name + " " + changes[i].before + " → " + changes[i].after;
  }
  if (changes.size() > shown) out += " (+" + std::to_string(changes.size() - shown) + " more)";
  return out;
}

int Comparison::points_without_rounds() const {
  if (noise == NoiseSource::points) return 0;  // judged by its samples instead
  return static_cast<int>(std::count_if(points.begin(), points.end(), [](const ComparedPoint& p) { return p.rounds < 2; }));
}

int Comparison::wrong_points() const {
  return static_cast<int>(std::count_if(points.begin(), points.end(), [](const ComparedPoint& p) { return p.wrong(); }));
}

GateVerdict Comparison::gate_verdict() const {
  if (regressed()) return GateVerdict::regression;
  const double floor = options.floor();
  for (std::size_t f = 0; f < families.size(); ++f) {
    const auto& u = result.families[f];
    if (u.verdict != Verdict::inconclusive) continue;
    if (families[f].kind == UnitKind::run && u.effect > -floor) return GateVerdict::inconclusive;
    if (state_differs && u.effect > floor) return GateVerdict::inconclusive;
  }
  const bool point_unsure = std::any_of(result.points.begin(), result.points.end(),
                                        [floor](const UnitFinding& u) { return u.verdict == Verdict::inconclusive && u.effect > floor; });
  return state_differs && point_unsure ? GateVerdict::inconclusive : GateVerdict::clean;
}

std::string Comparison::headline() const {
  std::string head = changes_in_brief(changes, 2);
  if (head.empty()) head = "no provenance change";
  if (state_differs) {
    head +=
        "; the new runs' machine state differs from the baselines' (core-to-core round trip): slowdowns are inconclusive, rerun "
        "them in the baselines' state";
  } else if (!set_aside.empty()) {
    head += "; " + std::to_string(set_aside.size()) + " baseline(s) in another machine state set aside";
  }
  if (!next_set_aside.empty()) {
    head += "; " + std::to_string(next_set_aside.size()) + " new run(s) set aside: no baseline shares their machine state";
  }
  const auto percent = [](double log_ratio) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%+.1f%%", (std::exp(log_ratio) - 1.0) * 100.0);
    return std::string(pct);
  };
  // What a whole run's z is counted in, by where the noise came from.
  const char* noise_name = noise == NoiseSource::points    ? " sigma of the points' scatter around it"
                           : noise == NoiseSource::history ? " sigma of the history's noise"
                                                           : " sigma of the noise between baseline runs";
  std::string tail;
  // The largest level that regressed speaks first: a whole run, then families, then points.
  for (int kind = static_cast<int>(UnitKind::run); kind >= static_cast<int>(UnitKind::op_size); --kind) {
    std::vector<std::size_t> hit;
    for (std::size_t f = 0; f < families.size(); ++f) {
      if (static_cast<int>(families[f].kind) == kind && result.families[f].verdict == Verdict::regressed) hit.push_back(f);
    }
    if (hit.empty()) continue;
    std::stable_sort(hit.begin(), hit.end(),
                     [this](std::size_t a, std::size_t b) { return result.families[a].effect > result.families[b].effect; });
    const auto& f = families[hit.front()];
    const auto& u = result.families[hit.front()];
    if (f.kind == UnitKind::run) {
      tail += (tail.empty() ? "" : "; ") + ("whole run regression (" + f.timing + ", " + f.concurrency + "): " + percent(u.effect) +
                                            " slower over " + std::to_string(f.points) + " points, " + fixed(u.z, 1) + noise_name);
    } else {
      tail +=
          (tail.empty() ? "" : "; ") + f.name() + " " + percent(u.effect) + " slower than the rest of the run, " + fixed(u.z, 1) + " sigma";
    }
    if (hit.size() > 1) {
      const std::string more = kind == static_cast<int>(UnitKind::run) ? " other timing mode(s) too"
                                                                       : " more " + std::string(to_string(static_cast<UnitKind>(kind)));
      tail += " (+" + std::to_string(hit.size() - 1) + more + ")";
    }
  }
  // A whole run slower beyond the threshold without significance: the cause of an inconclusive exit.
  for (std::size_t f = 0; f < families.size(); ++f) {
    const auto& u = result.families[f];
    if (families[f].kind == UnitKind::run && u.verdict == Verdict::inconclusive && u.effect > options.floor()) {
      tail += (tail.empty() ? "" : "; ") + ("whole run (" + families[f].timing + ", " + families[f].concurrency + ") " + percent(u.effect) +
                                            " slower, inconclusive: " + fixed(u.z, 1) + noise_name);
    }
  }
  if (wrong_points() > 0) tail += (tail.empty() ? "" : "; ") + std::to_string(wrong_points()) + " point(s) give WRONG results";
  // The slowest point that regressed by name, and how many more did.
  std::size_t slowest = points.size();
  int points_regressed = 0;
  for (std::size_t p = 0; p < points.size(); ++p) {
    if (result.points[p].verdict != Verdict::regressed) continue;
    ++points_regressed;
    if (slowest == points.size() || result.points[p].effect > result.points[slowest].effect) slowest = p;
  }
  if (points_regressed > 0) {
    const auto& pt = points[slowest].point;
    tail += (tail.empty() ? "" : "; ") + pt.dim + " " + pt.op + " at " + format_bytes(pt.bytes) + " (" + pt.mapping + ", " + pt.timing +
            ") " + percent(result.points[slowest].effect) + " slower";
    if (points_regressed > 1)
      tail += " (+" + std::to_string(points_regressed - 1) + " more of " + std::to_string(points.size()) + " points)";
  }
  if (tail.empty()) {
    const int inconclusive = result.count(UnitKind::point, Verdict::inconclusive);
    tail = "no regression in " + std::to_string(points.size()) + " compared points";
    if (inconclusive > 0) tail += " (" + std::to_string(inconclusive) + " inconclusive)";
  }
  return head + "; " + tail;
}

}  // namespace meshbench::analysis
