#include "bench/op_spec.hpp"

#include <algorithm>
#include <array>

namespace meshbench::bench {

namespace {

constexpr std::size_t kPatternPeriod = 251;

// Sum over the n ranks of pattern(j, index) depends only on index mod 251: one table per op call.
std::array<float, kPatternPeriod> rank_sums(int n) {
  std::array<float, kPatternPeriod> sums{};
  for (std::size_t i = 0; i < kPatternPeriod; ++i) {
    double s = 0;
    for (int j = 0; j < n; ++j) s += pattern(j, i);
    sums[i] = static_cast<float>(s);
  }
  return sums;
}

// Per-rank counts of the split ops are whole 16-byte units, as nccl-tests makes them (a count
// that is not takes NCCL's slower unaligned paths); all_reduce and send_recv keep theirs, as in
// nccl-tests.
std::size_t whole_units(std::size_t elements) { return elements / kAlignElements * kAlignElements; }
std::size_t padded(std::size_t elements) { return (elements + kAlignElements - 1) / kAlignElements * kAlignElements; }

}  // namespace

float pattern(int src_rank, std::size_t index) {
  return static_cast<float>(((static_cast<std::size_t>(src_rank) + 1) * 131 + (index % kPatternPeriod) * 7) % kPatternPeriod);
}

OpLayout op_layout(Op op, std::uint64_t bytes, int rank, int n, const TrafficMatrix* a2av) {
  OpLayout l;
  l.op = op;
  l.rank = rank;
  l.n = n;
  const auto un = static_cast<std::size_t>(n);
  const std::size_t elements = bytes / kElementBytes;
  switch (op) {
    case Op::all_reduce:
      l.count = elements;
      l.send = l.recv = l.count;
      l.bytes = l.algbw_bytes = l.count * kElementBytes;
      break;
    case Op::all_gather:
      l.count = whole_units(elements / un);
      l.send = l.count;
      l.recv = l.count * un;
      l.bytes = l.algbw_bytes = l.recv * kElementBytes;
      break;
    case Op::reduce_scatter:
      l.count = whole_units(elements / un);
      l.send = l.count * un;
      l.recv = l.count;
      l.bytes = l.algbw_bytes = l.send * kElementBytes;
      break;
    case Op::all_to_all:
      l.count = whole_units(elements / un);
      l.send = l.recv = l.count * un;
      l.bytes = l.algbw_bytes = l.send * kElementBytes;
      break;
    case Op::all_to_allv: {
      const auto& m = *a2av;
      const auto ur = static_cast<std::size_t>(rank);
      l.count = elements;
      l.send_counts = m[ur];
      for (std::size_t j = 0; j < un; ++j) {
        l.recv_counts.push_back(m[j][ur]);
        std::size_t before = 0;  // where sender j's block for this rank starts
        for (std::size_t q = 0; q < ur; ++q) before += padded(m[j][q]);
        l.sender_displs.push_back(before);
      }
      // Every block starts on a 16-byte boundary (padding between blocks), in both buffers.
      for (std::size_t j = 0; j < un; ++j) {
        l.send_displs.push_back(l.send);
        l.recv_displs.push_back(l.recv);
        l.send += padded(l.send_counts[j]);
        l.recv += padded(l.recv_counts[j]);
      }
      l.bytes = elements * kElementBytes;
      l.algbw_bytes = max_rank_traffic(m) * kElementBytes;
      break;
    }
    case Op::send_recv:
      l.count = elements;
      if (rank > 0) l.peers.push_back(rank - 1);
      if (rank + 1 < n) l.peers.push_back(rank + 1);
      l.send = l.count;
      l.recv = l.count * l.peers.size();
      l.bytes = l.algbw_bytes = l.count * kElementBytes;
      break;
  }
  return l;
}

std::uint64_t device_bytes_needed(Op op, std::uint64_t bytes, int n, const TrafficMatrix* a2av) {
  std::uint64_t most = 0;
  if (op == Op::all_to_allv) {
    // From the matrix: op_layout of every rank would cost n^2 each.
    const auto& m = *a2av;
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

void fill_send(const OpLayout& l, std::span<float> send) {
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = pattern(l.rank, i);
}

std::int64_t count_wrong(const OpLayout& l, std::span<const float> recv) {
  std::int64_t wrong = 0;
  const auto un = static_cast<std::size_t>(l.n);
  const auto ur = static_cast<std::size_t>(l.rank);
  auto expect = [&](std::size_t at, float value) {
    if (at >= recv.size() || recv[at] != value) ++wrong;
  };
  switch (l.op) {
    case Op::all_reduce: {
      const auto sums = rank_sums(l.n);
      for (std::size_t k = 0; k < l.count; ++k) expect(k, sums[k % kPatternPeriod]);
      break;
    }
    case Op::reduce_scatter: {
      const auto sums = rank_sums(l.n);
      for (std::size_t k = 0; k < l.count; ++k) expect(k, sums[(ur * l.count + k) % kPatternPeriod]);
      break;
    }
    case Op::all_gather:
      for (std::size_t j = 0; j < un; ++j)
        for (std::size_t k = 0; k < l.count; ++k) expect(j * l.count + k, pattern(static_cast<int>(j), k));
      break;
    case Op::all_to_all:
      for (std::size_t j = 0; j < un; ++j)
        for (std::size_t k = 0; k < l.count; ++k) expect(j * l.count + k, pattern(static_cast<int>(j), ur * l.count + k));
      break;
    case Op::all_to_allv:
      for (std::size_t j = 0; j < un; ++j)
        for (std::size_t k = 0; k < l.recv_counts[j]; ++k) expect(l.recv_displs[j] + k, pattern(static_cast<int>(j), l.sender_displs[j] + k));
      break;
    case Op::send_recv:
      for (std::size_t p = 0; p < l.peers.size(); ++p)
        for (std::size_t k = 0; k < l.count; ++k) expect(p * l.count + k, pattern(l.peers[p], k));
      break;
  }
  return wrong;
}

}  // namespace meshbench::bench
