#pragma once
// The report's checkpoint-bandwidth section, from the /io rows `meshbench io` stored: one line per
// launch, folder, method, phase and shard size.
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/report/text_table.hpp"
#include "results/records.hpp"

namespace meshbench::analysis {

struct IoSummary {
  std::string at, folder, filesystem, method, phase;
  std::uint64_t shard_bytes = 0;
  int ranks = 0, nodes = 0, repeats = 0;
  double median_gbps = 0, min_gbps = 0, max_gbps = 0;  // the whole launch's, over the repeats
  std::string slowest_host;                            // the node slowest in most repeats (the first of equals)
  double slowest_gbps = 0;                             // that node's median over the repeats
  std::string read_mode;                               // reads: as the rows say, "mixed" when they differ
  double cached_fraction = -1;                         // reads: the largest share cached over the repeats; -1 unknown
  std::int64_t wrong = 0;                              // reads: wrong 8-byte words over all repeats
};

// In the order the rows were stored.
std::vector<IoSummary> summarise_io(const std::vector<results::IoRow>& rows);

Table io_table(const std::vector<IoSummary>& io);

}  // namespace meshbench::analysis
