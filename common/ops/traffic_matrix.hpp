#pragma once
#include <cstdint>
#include <vector>

namespace meshbench::ops {

// Per-peer element counts of an all-to-allv in a group of n ranks: counts[i][j] is what rank i
// sends to rank j (bench/traffic_matrix.hpp draws the skewed ones the benchmark measures).
using TrafficMatrix = std::vector<std::vector<std::uint64_t>>;

// Largest per-rank send or receive total: nccl-tests' all-to-allv size for algbw.
std::uint64_t max_rank_traffic(const TrafficMatrix& counts);

}  // namespace meshbench::ops
