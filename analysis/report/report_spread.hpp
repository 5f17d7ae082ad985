#pragma once
// The infrastructure view of a results file: how far apart the groups of one dimension were
// when they ran at once, which group was slowest and on which hosts its ranks sat, and which
// hosts keep turning up in slow groups.
#include <string>
#include <vector>

#include "results/point_key.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

// One measured point's groups: min / median / max of the group medians.
struct GroupSpread {
  results::PointKey point;  // with the file's layout (ResultsFile::key_of)
  int groups = 0;
  double min_us = 0, median_us = 0, max_us = 0;
  double spread = 1;  // max / min (1 = all groups alike)
  int slowest_group = -1, fastest_group = -1;
  std::vector<int> slowest_ranks;          // logical ranks of the slowest group
  std::vector<int> slowest_slots;          // their slots (mapping's slot_of_rank)
  std::vector<std::string> slowest_hosts;  // distinct hosts of those slots, in slot order
  std::vector<double> group_us;            // every group's median, by group index (0 where missing)
};

// Every point with per-group timings, in file order.
std::vector<GroupSpread> group_spreads(const results::ResultsFile& file);

// Per (mapping, dim, op, timing, concurrency) the spread at the largest measured size, where
// bandwidth (and so a slow link) dominates.
std::vector<GroupSpread> spreads_at_largest_size(const std::vector<GroupSpread>& spreads);

// A host's record across points with two or more groups: how often it sat in the slowest group
// without also sitting in the fastest (a host in both cannot explain the gap).
struct HostTally {
  std::string host;
  int slowest_only = 0;
  int points = 0;           // points whose groups included the host
  double worst_spread = 1;  // the largest spread among the points it is blamed for
};
// Hosts with at least one blame, most blamed first.
std::vector<HostTally> slow_host_tally(const results::ResultsFile& file, const std::vector<GroupSpread>& spreads);

}  // namespace meshbench::analysis
