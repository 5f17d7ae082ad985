#pragma once
// How compare matches points between runs: by mapping structure (the digest of its group sets),
// not by name, and by dimension, op, backend, dtype, timing, concurrency and size.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "results/reader.hpp"

namespace meshbench::analysis::detail {

using RowKey = std::tuple<std::uint64_t, std::string, std::string, std::string, std::string, std::string, std::string, std::uint64_t>;

inline std::map<std::string, std::uint64_t> digests(const results::ResultsFile& f) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& m : f.mappings()) out[m.name] = m.digest;
  return out;
}

// Rows by structure key; the first of duplicate keys wins (a file never holds two).
inline std::map<RowKey, const results::MeasurementRow*> index_rows(const results::ResultsFile& f) {
  const auto d = digests(f);
  std::map<RowKey, const results::MeasurementRow*> out;
  for (const auto& r : f.measurements()) {
    const auto it = d.find(r.mapping);
    if (it == d.end()) continue;
    out.try_emplace(RowKey{it->second, r.dim, r.op, r.backend, r.dtype, r.timing, r.concurrency, r.bytes}, &r);
  }
  return out;
}

}  // namespace meshbench::analysis::detail
