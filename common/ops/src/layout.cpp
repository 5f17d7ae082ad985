#include "common/ops/layout.hpp"

#include <algorithm>

#include "common/ops/src/align.hpp"

namespace meshbench::ops {

float pattern(int src_rank, std::size_t index) {
  return static_cast<float>(((static_cast<std::size_t>(src_rank) + 1) * 131 + (index % kPatternPeriod) * 7) % kPatternPeriod);
}

OpLayout op_layout(Op op, std::uint64_t bytes, int rank, int n, const TrafficMatrix* matrix) {
  OpLayout l;
  l.op = op;
  l.rank = rank;
  l.n = n;
  info(op).shape(l, bytes / kElementBytes, matrix);
  return l;
}

std::uint64_t device_bytes_needed(Op op, std::uint64_t bytes, int n, const TrafficMatrix* matrix) {
  std::uint64_t most = 0;
  if (info(op).traffic_matrix) {
    // From the matrix: op_layout of every rank would cost n^2 each.
    const auto& m = *matrix;
    for (std::size_t i = 0; i < m.size(); ++i) {
      std::uint64_t elements = 0;
      for (std::size_t j = 0; j < m.size(); ++j) elements += padded(m[i][j]) + padded(m[j][i]);
      most = std::max(most, elements);
    }
    return most * kElementBytes;
  }
  // Every rank's buffers are alike but for send_recv's end stages, which have one neighbour.
  for (int rank : {0, std::min(1, n - 1)}) {
    const OpLayout l = op_layout(op, bytes, rank, n);
    most = std::max<std::uint64_t>(most, (l.send + l.recv) * kElementBytes);
  }
  return most;
}

void fill_send(const OpLayout& l, std::span<float> send) { info(l.op).fill(l, send); }

std::int64_t count_wrong(const OpLayout& l, std::span<const float> recv) { return info(l.op).check(l, recv); }

}  // namespace meshbench::ops
