// A comparison for CI: one JSON document, one schema for every form (docs/compare.schema.json).
#include <cmath>
#include <ostream>

#include "analysis/compare/compare_writers.hpp"
#include "analysis/compare/src/compare_json.hpp"
#include "analysis/compare/src/provenance_writer.hpp"
#include "common/error.hpp"
#include "results/point_key.hpp"

namespace meshbench::analysis {

namespace {

using nlohmann::ordered_json;

// A log ratio as a ratio, or null when it is infinite (a slowdown no comparison could call).
ordered_json ratio_or_null(double log_ratio) {
  return std::isfinite(log_ratio) ? ordered_json(std::exp(log_ratio)) : ordered_json(nullptr);
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

// One run a side: the point's within-run test and the bootstrap interval of its ratio.
void add_within_run(const ComparedPoint& p, const UnitFinding& u, ordered_json& o) {
  o["base_samples"] = p.base_samples;
  o["new_samples"] = p.new_samples;
  if (p.interval.high > 0) o["ratio_interval"] = {p.interval.low, p.interval.high};
  if (!u.within_tested) {
    o["within"] = nullptr;
    return;
  }
  o["within"] = {{"u", u.within.u},
                 {"z", u.within.z},
                 {"exact", u.within.exact},
                 {"variance_inflation", u.within.inflation},
                 {"p_slower", u.within.p_slower},
                 {"p_faster", u.within.p_faster}};
}

ordered_json families_json(const Comparison& c) {
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

ordered_json points_json(const Comparison& c) {
  ordered_json out = ordered_json::array();
  for (std::size_t p = 0; p < c.points.size(); ++p) {
    const auto& pt = c.points[p];
    ordered_json o = {{"mapping", pt.point.mapping},
                      {"new_mapping", pt.new_mapping},
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
    if (c.noise == NoiseSource::points) add_within_run(pt, c.result.points[p], o);
    out.push_back(o);
  }
  return out;
}

std::string method_text(NoiseSource noise) {
  switch (noise) {
    case NoiseSource::points:
      return "one run a side: each point's log ratio, less its whole run's median, against how the other points of that run moved "
             "(robust sigma, tail fitted from them) and by a one-sided Mann-Whitney U of its samples (variance inflated for "
             "autocorrelation); families against the other points and the other families; the whole run's median against its "
             "points' scatter; Benjamini-Hochberg per level and test";
    case NoiseSource::history:
      return "log median per point and family against the baseline runs' median; noise from the robust spread of the differences "
             "between successive history runs (shrunk towards the level's pooled spread); Benjamini-Hochberg per level";
    case NoiseSource::baseline_runs: break;
  }
  return "log median per point and family against the baseline runs' median; noise from the robust pairwise spread between "
         "baseline runs (shrunk towards the level's pooled spread) and the between-round spread; Benjamini-Hochberg per level";
}

}  // namespace

ordered_json comparison_to_json(const Comparison& c) {
  ordered_json j =
      detail::comparison_head(c.gate_verdict(), c.noise, c.options.interleaved ? Pairing::interleaved : Pairing::none, c.headline());
  const auto sides = [](const std::vector<RunSide>& runs) {
    ordered_json a = ordered_json::array();
    for (const auto& r : runs) a.push_back(detail::run_side_json(r));
    return a;
  };
  j["base"] = sides(c.base);
  j["new"] = sides(c.next);
  j["options"] = {{"threshold", c.options.threshold},        {"alpha", c.options.alpha},
                  {"alpha_per_level", c.result.level_alpha}, {"confirm", c.options.confirm},
                  {"interleaved", c.options.interleaved},    {"bootstrap", c.options.bootstrap},
                  {"confidence", c.options.confidence},      {"method", method_text(c.noise)}};
  std::vector<std::pair<UnitKind, Verdict>> units;
  for (std::size_t p = 0; p < c.points.size(); ++p)
    units.emplace_back(UnitKind::point, c.points[p].wrong() ? Verdict::wrong : c.result.points[p].verdict);
  for (std::size_t f = 0; f < c.families.size(); ++f) units.emplace_back(c.families[f].kind, c.result.families[f].verdict);
  j["counts"] = detail::verdict_counts(units);
  j["matching"] = {{"compared", c.points.size()}, {"only_base", c.only_base},       {"only_new", c.only_new},
                   {"renamed", c.renamed},        {"restructured", c.restructured}, {"points_without_rounds", c.points_without_rounds()}};
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
  j["points"] = points_json(c);
  return j;
}

void JsonCompareWriter::write(const Comparison& c, std::ostream& out) const { out << comparison_to_json(c).dump(2) << "\n"; }

std::unique_ptr<CompareWriter> make_compare_writer(OutputFormat format) {
  switch (format) {
    case OutputFormat::text: return std::make_unique<TextCompareWriter>();
    case OutputFormat::markdown: return std::make_unique<MarkdownCompareWriter>();
    case OutputFormat::json: return std::make_unique<JsonCompareWriter>();
    case OutputFormat::csv: break;
  }
  throw InputError("compare has no csv format; use --format text, json or markdown");
}

}  // namespace meshbench::analysis
