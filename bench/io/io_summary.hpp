#pragma once
// From what each rank measured in one phase to the rows `meshbench io` stores: the whole launch's
// bandwidth and each node's, and which node was slowest.
#include <cstdint>
#include <string>
#include <vector>

#include "results/records.hpp"

namespace meshbench::bench::io {

// One rank's phase as rank 0 gathers it.
struct RankResult {
  std::string host;
  std::uint64_t bytes = 0;
  double seconds = 0;
  std::int64_t wrong = 0;
  std::string read_mode;
  double cached_fraction = -1;
};

// What every row of one phase shares.
struct PhaseKey {
  std::string at, folder, filesystem, method, phase;
  std::uint64_t shard_bytes = 0;
  int repeat = 0;
};

// The launch's row first (host ""), then one per node in order of first appearance. Every rank
// starts at one barrier, so a node's time is its slowest rank's and the launch's the slowest
// node's; GB/s is bytes / time in 1e9 B/s. A node's read mode is its ranks' when they agree,
// else "mixed"; its cached fraction is byte-weighted (-1 when any rank could not tell).
std::vector<results::IoRow> phase_rows(const PhaseKey& key, const std::vector<RankResult>& ranks);

// The node rows' slowest (lowest GB/s; the first of equals), nullptr when there is no node row.
const results::IoRow* slowest_node(const std::vector<results::IoRow>& rows);

}  // namespace meshbench::bench::io
