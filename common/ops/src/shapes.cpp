// The layout column of the op table: each op's counts and buffer sizes (nccl-tests' sizes).
#include "common/ops/layout.hpp"
#include "common/ops/src/align.hpp"

namespace meshbench::ops::shape {

void all_reduce(OpLayout& l, std::size_t elements, const TrafficMatrix*) {
  l.count = elements;
  l.send = l.recv = l.count;
  l.bytes = l.algbw_bytes = l.count * kElementBytes;
}

void all_gather(OpLayout& l, std::size_t elements, const TrafficMatrix*) {
  const auto un = static_cast<std::size_t>(l.n);
  l.count = whole_units(elements / un);
  l.send = l.count;
  l.recv = l.count * un;
  l.bytes = l.algbw_bytes = l.recv * kElementBytes;
}

void reduce_scatter(OpLayout& l, std::size_t elements, const TrafficMatrix*) {
  const auto un = static_cast<std::size_t>(l.n);
  l.count = whole_units(elements / un);
  l.send = l.count * un;
  l.recv = l.count;
  l.bytes = l.algbw_bytes = l.send * kElementBytes;
}

void all_to_all(OpLayout& l, std::size_t elements, const TrafficMatrix*) {
  const auto un = static_cast<std::size_t>(l.n);
  l.count = whole_units(elements / un);
  l.send = l.recv = l.count * un;
  l.bytes = l.algbw_bytes = l.send * kElementBytes;
}

void all_to_allv(OpLayout& l, std::size_t elements, const TrafficMatrix* matrix) {
  const auto& m = *matrix;
  const auto un = static_cast<std::size_t>(l.n);
  const auto ur = static_cast<std::size_t>(l.rank);
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
}

void send_recv(OpLayout& l, std::size_t elements, const TrafficMatrix*) {
  l.count = elements;
  if (l.rank > 0) l.peers.push_back(l.rank - 1);
  if (l.rank + 1 < l.n) l.peers.push_back(l.rank + 1);
  l.send = l.count;
  l.recv = l.count * l.peers.size();
  l.bytes = l.algbw_bytes = l.count * kElementBytes;
}

}  // namespace meshbench::ops::shape
