#include "common/ops/traffic_matrix.hpp"

#include <algorithm>

namespace meshbench::ops {

std::uint64_t max_rank_traffic(const TrafficMatrix& counts) {
  std::uint64_t best = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    std::uint64_t sent = 0, received = 0;
    for (std::size_t j = 0; j < counts.size(); ++j) {
      sent += counts[i][j];
      received += counts[j][i];
    }
    best = std::max({best, sent, received});
  }
  return best;
}

}  // namespace meshbench::ops
