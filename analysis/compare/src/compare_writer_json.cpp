#include <algorithm>
#include <cmath>
#include <ostream>

#include "analysis/compare/compare_writers.hpp"
#include "analysis/compare/src/provenance_writer.hpp"
#include "analysis/report/report_table.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {

namespace {

using nlohmann::ordered_json;

ordered_json side_json(const RunSide& s) {
  return {{"path", s.path},
          {"started_at", s.started_at},
          {"status", s.status},
          {"backend", s.backend},
          {"meshbench_version", s.meshbench_version},
          {"world_size", s.world}};
}

}  // namespace

ordered_json comparison_to_json(const Comparison& c) {
  ordered_json j;
  j["schema"] = "meshbench.compare";
  j["schema_version"] = kCompareJsonVersion;
  j["base"] = side_json(c.base);
  j["new"] = side_json(c.next);
  j["options"] = {{"threshold", c.options.threshold},
                  {"alpha", c.options.alpha},
                  {"confidence", c.options.confidence},
                  {"bootstrap", c.options.bootstrap},
                  {"test",
                   "one-sided Mann-Whitney U on the samples (variance inflated for autocorrelation), and log(ratio) against how all "
                   "compared points moved (median, robust sigma, tail fitted from them); Benjamini-Hochberg over the points for each"}};
  j["headline"] = c.headline();
  j["regressed"] = c.regressed();
  const auto family_count = [&c](Verdict v) {
    return std::count_if(c.families.begin(), c.families.end(), [v](const FamilyFinding& f) { return f.verdict == v; });
  };
  j["counts"] = {{"compared", c.rows.size()},
                 {"family_regression", family_count(Verdict::regression)},
                 {"family_improvement", family_count(Verdict::improvement)},
                 {"regression", c.count(Verdict::regression)},
                 {"wrong", c.count(Verdict::wrong)},
                 {"improvement", c.count(Verdict::improvement)},
                 {"unchanged", c.count(Verdict::unchanged)},
                 {"only_base", c.only_base},
                 {"only_new", c.only_new}};
  detail::add_provenance_changes(j, c.changes, c.hidden_changes);
  j["rows"] = ordered_json::array();
  for (const auto& r : c.rows) {
    ordered_json row = {{"verdict", to_string(r.verdict)},
                        {"base_mapping", r.base_mapping},
                        {"new_mapping", r.new_mapping},
                        {"digest", hex_digest(r.digest)},
                        {"dim", r.dim},
                        {"op", r.op},
                        {"backend", r.backend},
                        {"dtype", r.dtype},
                        {"timing", r.timing},
                        {"concurrency", r.concurrency},
                        {"bytes", r.bytes},
                        {"base_median_us", r.base_median_us},
                        {"new_median_us", r.new_median_us},
                        {"ratio", r.ratio},
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
    row["z_between"] = std::isfinite(r.z_between) ? ordered_json(r.z_between) : ordered_json(nullptr);
    row["q_between_slower"] = r.q_between_slower;
    row["q_between_faster"] = r.q_between_faster;
    j["rows"].push_back(row);
  }
  j["scatter"] = ordered_json::array();
  for (const auto& t : c.scatter) {
    j["scatter"].push_back({{"timing", t.timing},
                            {"points", t.scatter.points},
                            {"estimated", t.scatter.estimated},
                            {"shift_ratio", t.shift_ratio},
                            {"sigma", t.scatter.sigma},
                            {"tail_nu", t.scatter.tail_nu},
                            {"shift_z", std::isfinite(t.shift_z) ? ordered_json(t.shift_z) : ordered_json(nullptr)},
                            {"verdict", to_string(t.verdict)}});
  }
  j["families"] = ordered_json::array();
  for (const auto& f : c.families) {
    j["families"].push_back({{"name", f.name()},
                             {"timing", f.timing},
                             {"dim", f.dim},
                             {"op", f.op},
                             {"bytes", f.bytes},
                             {"points", f.points},
                             {"median_ratio", f.median_ratio},
                             {"rest_ratio", f.rest_ratio},
                             {"p_slower", f.p_slower},
                             {"q_slower", f.q_slower},
                             {"p_faster", f.p_faster},
                             {"q_faster", f.q_faster},
                             {"verdict", to_string(f.verdict)}});
  }
  j["renamed"] = c.renamed;
  j["restructured"] = c.restructured;
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
