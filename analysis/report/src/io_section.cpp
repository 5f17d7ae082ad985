#include "analysis/report/io_section.hpp"
#include "common/median.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "common/sizes.hpp"

namespace meshbench::analysis {

namespace {

using IoPhaseKey = std::tuple<std::string, std::string, std::string, std::string, std::uint64_t>;

IoPhaseKey io_phase_key(const results::IoRow& r) { return {r.at, r.folder, r.method, r.phase, r.shard_bytes}; }

// The repeat's slowest node row among `rows` (same key and repeat), nullptr when none.
const results::IoRow* slowest_in_repeat(const std::vector<const results::IoRow*>& rows, int repeat) {
  const results::IoRow* slowest = nullptr;
  for (const auto* r : rows) {
    if (r->repeat != repeat || r->host.empty()) continue;
    if (slowest == nullptr || r->gbps < slowest->gbps) slowest = r;
  }
  return slowest;
}

IoSummary summarise(const std::vector<const results::IoRow*>& rows) {
  IoSummary s;
  const auto& first = *rows.front();
  s.at = first.at;
  s.folder = first.folder;
  s.filesystem = first.filesystem;
  s.method = first.method;
  s.phase = first.phase;
  s.shard_bytes = first.shard_bytes;
  std::vector<double> launch;
  std::vector<std::string> hosts;
  for (const auto* r : rows) {
    if (!r->host.empty()) {
      if (std::find(hosts.begin(), hosts.end(), r->host) == hosts.end()) hosts.push_back(r->host);
      continue;
    }
    launch.push_back(r->gbps);
    s.ranks = r->ranks;
    s.wrong += r->wrong;
    if (s.read_mode.empty()) s.read_mode = r->read_mode;
    else if (s.read_mode != r->read_mode) s.read_mode = "mixed";
    s.cached_fraction = std::max(s.cached_fraction, r->cached_fraction);
  }
  s.nodes = static_cast<int>(hosts.size());
  s.repeats = static_cast<int>(launch.size());
  s.median_gbps = median_of(launch);
  if (!launch.empty()) {
    s.min_gbps = *std::min_element(launch.begin(), launch.end());
    s.max_gbps = *std::max_element(launch.begin(), launch.end());
  }
  std::map<std::string, int> slowest_count;
  for (const auto* r : rows) {
    if (!r->host.empty()) continue;
    if (const auto* slow = slowest_in_repeat(rows, r->repeat)) ++slowest_count[slow->host];
  }
  int most = 0;
  for (const auto& h : hosts) {
    if (slowest_count[h] > most) {
      most = slowest_count[h];
      s.slowest_host = h;
    }
  }
  std::vector<double> slow;
  for (const auto* r : rows) {
    if (r->host == s.slowest_host && !s.slowest_host.empty()) slow.push_back(r->gbps);
  }
  s.slowest_gbps = median_of(slow);
  return s;
}

std::string percent(double fraction) { return fraction < 0 ? "?" : std::to_string(std::lround(fraction * 100)) + "%"; }

}  // namespace

std::vector<IoSummary> summarise_io(const std::vector<results::IoRow>& rows) {
  std::vector<IoPhaseKey> order;
  std::map<IoPhaseKey, std::vector<const results::IoRow*>> groups;
  for (const auto& r : rows) {
    const IoPhaseKey k = io_phase_key(r);
    if (groups.find(k) == groups.end()) order.push_back(k);
    groups[k].push_back(&r);
  }
  std::vector<IoSummary> out;
  for (const auto& k : order) out.push_back(summarise(groups[k]));
  return out;
}

Table io_table(const std::vector<IoSummary>& io) {
  Table t({"folder", "fs", "method", "phase", ">shard/rank", ">ranks", ">nodes", ">repeats", ">GB/s median", ">min", ">max", "slowest node",
           ">its GB/s", "read mode", ">cached", ">wrong"});
  for (const auto& s : io) {
    const bool read = s.phase == "read";
    t.add({s.folder, s.filesystem, s.method, s.phase, format_bytes(s.shard_bytes), std::to_string(s.ranks), std::to_string(s.nodes),
           std::to_string(s.repeats), fixed(s.median_gbps, 3), fixed(s.min_gbps, 3), fixed(s.max_gbps, 3), s.slowest_host,
           fixed(s.slowest_gbps, 3), read ? s.read_mode : "", read ? percent(s.cached_fraction) : "", read ? std::to_string(s.wrong) : ""});
  }
  return t;
}

}  // namespace meshbench::analysis
