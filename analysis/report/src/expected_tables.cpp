// The "% of expected" section's tables and lines, for the text, Markdown and HTML writers.
#include <algorithm>
#include <tuple>

#include "analysis/report/src/report_tables.hpp"
#include "common/sizes.hpp"

namespace meshbench::analysis::detail {

namespace {

std::string pct(double v) { return fixed(v, 1) + "%"; }

std::string how(const ExpectedPoint& p) { return p.protocol.empty() ? p.algorithm : p.algorithm + "/" + p.protocol; }

}  // namespace

std::vector<std::string> expected_intro_lines(const Report& r) {
  const auto& e = r.expected;
  if (!e.known) return {e.note};
  return {"expected: the " + e.predictor + " cost model (" + e.model + ") on " + e.hardware +
              "; % of expected = measured busbw / expected busbw",
          "points below " + fixed(e.threshold_pct, 0) + "% of expected are named (--expect-below PCT)"};
}

Table expected_table(const Report& r, std::size_t limit, std::size_t& left_out) {
  std::vector<const ExpectedPoint*> order;
  for (const auto& p : r.expected.points) order.push_back(&p);
  const auto key = [&](const ExpectedPoint* p) {
    const auto& k = p->point;
    return std::make_tuple(rank_of(r, k.mapping), k.mapping, dim_order(k.dim), op_order(k.op), k.concurrency, k.timing, k.bytes);
  };
  std::stable_sort(order.begin(), order.end(), [&](const auto* a, const auto* b) { return key(a) < key(b); });
  Table t({"mapping", "dim", "op", "concurrency", ">size", ">busbw GB/s", ">expected GB/s", ">% of expected", "model's algorithm", ""});
  left_out = order.size() > limit ? order.size() - limit : 0;
  for (std::size_t i = 0; i < order.size() && i < limit; ++i) {
    const auto& p = *order[i];
    const auto& k = p.point;
    t.add({k.mapping, k.dim, k.op, k.concurrency, format_bytes(k.bytes), sig3(p.measured_busbw_gbps), sig3(p.predicted_busbw_gbps),
           pct(p.expected_pct), how(p), p.expected_pct < r.expected.threshold_pct ? "BELOW" : ""});
  }
  return t;
}

std::vector<std::string> expected_below_lines(const Report& r, std::size_t limit) {
  const auto& e = r.expected;
  if (!e.known) return {};
  if (e.below.empty())
    return {"no point below " + fixed(e.threshold_pct, 0) + "% of expected (" + std::to_string(e.points.size()) + " points)"};
  std::vector<std::string> out;
  out.push_back(std::to_string(e.below.size()) + " of " + std::to_string(e.points.size()) + " points below " + fixed(e.threshold_pct, 0) +
                "% of expected, lowest first:");
  for (std::size_t i = 0; i < e.below.size() && i < limit; ++i) {
    const auto& p = e.below[i];
    const auto& k = p.point;
    out.push_back(k.mapping + " " + k.dim + " " + k.op + " " + format_bytes(k.bytes) + " (" + k.concurrency + ", " + k.timing +
                  "): " + pct(p.expected_pct) + " of expected, busbw " + sig3(p.measured_busbw_gbps) + " GB/s against " +
                  sig3(p.predicted_busbw_gbps) + " (" + how(p) + ")");
  }
  if (e.below.size() > limit) out.push_back("and " + std::to_string(e.below.size() - limit) + " more in --format csv or json");
  return out;
}

}  // namespace meshbench::analysis::detail
