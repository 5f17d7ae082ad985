#include <algorithm>
#include <cmath>
#include <ostream>

#include "analysis/compare/compare_writers.hpp"
#include "analysis/compare/src/compare_json.hpp"
#include "analysis/compare/src/provenance_writer.hpp"
#include "analysis/report/text_table.hpp"
#include "common/error.hpp"
#include "results/point_key.hpp"

namespace meshbench::analysis {

namespace {

using nlohmann::ordered_json;

ordered_json finite_or_null(double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); }

UnitKind level_of(const FamilyFinding& f) { return f.bytes != 0 ? UnitKind::op_size : UnitKind::collective; }

ordered_json point_json(const RowComparison& r) {
  ordered_json row = {{"mapping", r.point.mapping},
                      {"new_mapping", r.new_mapping},
                      {"digest", results::digest_hex(r.digest)},
                      {"dim", r.point.dim},
                      {"op", r.point.op},
                      {"backend", r.backend},
                      {"dtype", r.dtype},
                      {"timing", r.point.timing},
                      {"concurrency", r.point.concurrency},
                      {"bytes", r.point.bytes},
                      {"base_median_us", r.base_median_us},
                      {"new_median_us", r.new_median_us},
                      {"ratio", r.ratio},
                      {"verdict", to_string(r.verdict)},
                      {"base_samples", r.base_samples},
                      {"new_samples", r.new_samples},
                      {"tested", r.tested},
                      {"base_wrong", r.base_wrong},
                      {"new_wrong", r.new_wrong}};
  if (r.tested) {
    row["u"] = r.test.u;
    row["z"] = r.test.z;
    row["exact"] = r.test.exact;
    row["variance_inflation"] = r.test.inflation;
    row["p_slower"] = r.test.p_slower;
    row["p_faster"] = r.test.p_faster;
    row["q_slower"] = r.q_slower;
    row["q_faster"] = r.q_faster;
    if (r.interval.high > 0) row["ratio_interval"] = {r.interval.low, r.interval.high};
  }
  row["z_between"] = finite_or_null(r.z_between);
  row["q_between_slower"] = r.q_between_slower;
  row["q_between_faster"] = r.q_between_faster;
  return row;
}

// The whole run of one timing mode, as a family of level "run" (its shift against the points' scatter).
ordered_json whole_run_json(const TimingScatter& t) {
  return {{"level", to_string(UnitKind::run)},
          {"name", "whole run (" + t.timing + ")"},
          {"timing", t.timing},
          {"dim", ""},
          {"op", ""},
          {"bytes", 0},
          {"points", t.scatter.points},
          {"ratio", t.shift_ratio},
          {"verdict", to_string(t.verdict)},
          {"estimated", t.scatter.estimated},
          {"sigma_log", t.scatter.sigma},
          {"tail_nu", t.scatter.tail_nu},
          {"z", finite_or_null(t.shift_z)}};
}

ordered_json family_json(const FamilyFinding& f) {
  return {{"level", to_string(level_of(f))},
          {"name", f.name()},
          {"timing", f.timing},
          {"dim", f.dim},
          {"op", f.op},
          {"bytes", f.bytes},
          {"points", f.points},
          {"ratio", f.median_ratio},
          {"verdict", to_string(f.verdict)},
          {"rest_ratio", f.rest_ratio},
          {"p_slower", f.p_slower},
          {"q_slower", f.q_slower},
          {"p_faster", f.p_faster},
          {"q_faster", f.q_faster}};
}

}  // namespace

ordered_json comparison_to_json(const Comparison& c) {
  ordered_json j = detail::comparison_head(c.gate_verdict(), NoiseSource::points, Pairing::none, c.headline());
  j["base"] = ordered_json::array({detail::run_side_json(c.base)});
  j["new"] = ordered_json::array({detail::run_side_json(c.next)});
  j["options"] = {{"threshold", c.options.threshold},
                  {"alpha", c.options.alpha},
                  {"confidence", c.options.confidence},
                  {"bootstrap", c.options.bootstrap},
                  {"method",
                   "one-sided Mann-Whitney U on the samples (variance inflated for autocorrelation), and log(ratio) against how all "
                   "compared points moved (median, robust sigma, tail fitted from them); Benjamini-Hochberg over the points for each"}};
  std::vector<std::pair<UnitKind, Verdict>> units;
  for (const auto& r : c.rows) units.emplace_back(UnitKind::point, r.verdict);
  for (const auto& f : c.families) units.emplace_back(level_of(f), f.verdict);
  for (const auto& t : c.scatter) units.emplace_back(UnitKind::run, t.verdict);
  j["counts"] = detail::verdict_counts(units);
  j["matching"] = {{"compared", c.rows.size()},
                   {"only_base", c.only_base},
                   {"only_new", c.only_new},
                   {"renamed", c.renamed},
                   {"restructured", c.restructured}};
  detail::add_provenance_changes(j, c.changes, c.hidden_changes);
  j["families"] = ordered_json::array();
  for (const auto& t : c.scatter) j["families"].push_back(whole_run_json(t));
  for (const auto& f : c.families) j["families"].push_back(family_json(f));
  j["points"] = ordered_json::array();
  for (const auto& r : c.rows) j["points"].push_back(point_json(r));
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
