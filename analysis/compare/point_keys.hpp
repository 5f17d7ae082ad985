#pragma once
// How compare matches points between runs: by mapping structure (the digest of its group sets),
// not by name, and by dimension, op, timing, concurrency, size, backend and dtype.
#include <cstdint>
#include <map>
#include <string>

#include "results/point_key.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis::detail {

// A point as compare matches it: its key with the mapping's digest (results::digest_hex) for the
// mapping's name and no layout (the digest, of the groups of every dimension, stands for it),
// and the backend and dtype it ran with.
struct MatchKey {
  results::PointKey point;
  std::string backend, dtype;
  auto operator<=>(const MatchKey&) const = default;
};

inline MatchKey match_key(std::uint64_t digest, const results::MeasurementRow& r) {
  results::PointKey point = results::key_of(r);
  point.mapping = results::digest_hex(digest);
  return {std::move(point), r.backend, r.dtype};
}

inline std::map<std::string, std::uint64_t> digests(const results::ResultsFile& f) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& m : f.mappings()) out[m.name] = m.digest;
  return out;
}

using RowIndex = std::map<MatchKey, const results::MeasurementRow*>;

// Rows by match key; the first of duplicate keys wins (a file never holds two).
inline RowIndex index_rows(const results::ResultsFile& f) {
  const auto d = digests(f);
  RowIndex out;
  for (const auto& r : f.measurements()) {
    const auto it = d.find(r.point.mapping);
    if (it == d.end()) continue;
    out.try_emplace(match_key(it->second, r), &r);
  }
  return out;
}

}  // namespace meshbench::analysis::detail
