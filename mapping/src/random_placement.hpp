#pragma once
#include <cstdint>
#include <vector>

namespace meshbench::mapping::detail {

// A uniformly random permutation of 0..n-1: Fisher-Yates driven by splitmix64, so the same seed
// gives the same placement on every platform (std::shuffle's output is library-specific).
std::vector<int> random_placement(int n, std::uint64_t seed);

}  // namespace meshbench::mapping::detail
