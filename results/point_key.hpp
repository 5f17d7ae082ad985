#pragma once
// A point's identity (docs/architecture.md, "point"): which layout, mapping, dimension, op,
// timing mode, concurrency and size it is. Every row record that belongs to one point
// (records.hpp, gpu_records.hpp) holds one as `point`; key_of takes it from any of them, and
// the readers of results files (report, compare, history) key their maps by it.
#include <compare>
#include <concepts>
#include <cstdint>
#include <string>
#include <utility>

namespace meshbench::results {

struct LayoutRecord;

struct PointKey {
  // The layout's text (layout_key). A row's `point` leaves it empty: a row's layout is its
  // mapping's (a file holds one layout, or several with each mapping in one), and
  // ResultsFile::key_of(row) sets it; a key taken from a row alone (key_of(row): the runner's,
  // --resume's, a predictor's) leaves it empty.
  std::string layout;
  std::string mapping;      // the mapping's name (compare puts the digest's hex here)
  std::string dim;          // tp, cp, dp, pp, ep, etp, edp
  std::string op;           // all_reduce, ...
  std::string timing;       // per_iteration | batched
  std::string concurrency;  // concurrent | isolated
  std::uint64_t bytes = 0;  // nccl-tests' size convention (per-rank buffer)
  auto operator<=>(const PointKey&) const = default;
};

// A row record of one point: it holds the point's key, with the layout left empty.
template <typename Row>
concept PointRow = std::same_as<decltype(Row::point), PointKey>;

// A row's key with the given layout.
template <PointRow Row>
PointKey key_of(const Row& r, std::string layout = {}) {
  PointKey k = r.point;
  k.layout = std::move(layout);
  return k;
}

// One measured visit of a point: the round (0 first) and the attempt (1 first; the machine-state
// probe may measure a visit again), as /state_probes, /nic_counters and /gpu_health keep them.
struct PointVisit {
  PointKey point;
  int round = 0;
  int attempt = 1;
  auto operator<=>(const PointVisit&) const = default;
};

template <typename Row>
concept VisitRow = PointRow<Row> && requires(const Row& r) {
  { r.round } -> std::convertible_to<int>;
  { r.attempt } -> std::convertible_to<int>;
};

template <VisitRow Row>
PointVisit visit_of(const Row& r, std::string layout = {}) {
  return {key_of(r, std::move(layout)), r.round, r.attempt};
}

// A layout's text for PointKey::layout: "world 8, tp 2 cp 1 pp 1 ep 1 etp 1 dp 4 edp 4".
std::string layout_key(const LayoutRecord& layout);

// A mapping's structure digest (mapping::structure_digest) as 16 hex digits, as /mappings keeps
// it; compare matches points by it (analysis/compare/point_keys.hpp).
std::string digest_hex(std::uint64_t digest);

}  // namespace meshbench::results
