#pragma once
#include <cstdint>
#include <vector>

namespace meshbench::bench {

// Per-peer element counts of a skewed all-to-allv in a group of n ranks: counts[i][j] is what
// rank i sends to rank j. Every rank sends `elements_per_rank` in total, split over the
// destinations by a Zipf(skew) popularity shared by all senders — a few hot experts receive
// most tokens, as MoE routing does. skew 0 is uniform. The popularity order is a permutation
// drawn from `seed`, so it is reproducible and the same on every rank.
using TrafficMatrix = std::vector<std::vector<std::uint64_t>>;
TrafficMatrix alltoallv_matrix(int n, std::uint64_t elements_per_rank, double skew, std::uint64_t seed);

// Largest per-rank send or receive total: nccl-tests' all-to-allv size for algbw.
std::uint64_t max_rank_traffic(const TrafficMatrix& counts);

}  // namespace meshbench::bench
