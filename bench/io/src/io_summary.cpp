#include "bench/io/io_summary.hpp"

#include <algorithm>

namespace meshbench::bench::io {

namespace {

results::IoRow combine(const PhaseKey& key, const std::string& host, const std::vector<const RankResult*>& ranks) {
  results::IoRow row;
  row.at = key.at;
  row.folder = key.folder;
  row.filesystem = key.filesystem;
  row.method = key.method;
  row.phase = key.phase;
  row.shard_bytes = key.shard_bytes;
  row.repeat = key.repeat;
  row.host = host;
  row.ranks = static_cast<int>(ranks.size());
  double cached_bytes = 0;
  bool cached_known = true;
  for (const auto* r : ranks) {
    row.bytes += r->bytes;
    row.seconds = std::max(row.seconds, r->seconds);
    row.wrong += r->wrong;
    if (row.read_mode.empty()) row.read_mode = r->read_mode;
    else if (row.read_mode != r->read_mode) row.read_mode = "mixed";
    if (r->cached_fraction < 0) cached_known = false;
    cached_bytes += r->cached_fraction * static_cast<double>(r->bytes);
  }
  row.gbps = row.seconds > 0 ? static_cast<double>(row.bytes) / row.seconds / 1e9 : 0;
  if (key.phase == "read") row.cached_fraction = cached_known && row.bytes > 0 ? cached_bytes / static_cast<double>(row.bytes) : -1;
  return row;
}

}  // namespace

std::vector<results::IoRow> phase_rows(const PhaseKey& key, const std::vector<RankResult>& ranks) {
  std::vector<const RankResult*> all;
  std::vector<std::string> hosts;
  for (const auto& r : ranks) {
    all.push_back(&r);
    if (std::find(hosts.begin(), hosts.end(), r.host) == hosts.end()) hosts.push_back(r.host);
  }
  std::vector<results::IoRow> rows{combine(key, "", all)};
  for (const auto& h : hosts) {
    std::vector<const RankResult*> mine;
    for (const auto& r : ranks) {
      if (r.host == h) mine.push_back(&r);
    }
    rows.push_back(combine(key, h, mine));
  }
  return rows;
}

const results::IoRow* slowest_node(const std::vector<results::IoRow>& rows) {
  const results::IoRow* slowest = nullptr;
  for (const auto& r : rows) {
    if (r.host.empty()) continue;
    if (slowest == nullptr || r.gbps < slowest->gbps) slowest = &r;
  }
  return slowest;
}

}  // namespace meshbench::bench::io
