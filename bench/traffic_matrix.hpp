#pragma once
#include <cstdint>
#include <vector>

#include "common/ops/traffic_matrix.hpp"

namespace meshbench::bench {

using ops::max_rank_traffic;
using ops::TrafficMatrix;

// Per-peer element counts of a skewed all-to-allv in a group of n ranks: counts[i][j] is what
// rank i sends to rank j. Every rank sends `elements_per_rank` in total, split over the
// destinations by a Zipf(skew) popularity shared by all senders — a few hot experts receive
// most tokens, as MoE routing does. skew 0 is uniform. The popularity order is a permutation
// drawn from `seed`, so it is reproducible and the same on every rank.
TrafficMatrix alltoallv_matrix(int n, std::uint64_t elements_per_rank, double skew, std::uint64_t seed);

}  // namespace meshbench::bench
