// Every op's buffer layout: counts and buffer sizes for several group sizes and byte sizes, the
// 16-byte rounding of the split ops, a skewed all_to_allv, send_recv's neighbours.
#include <gtest/gtest.h>

#include <vector>

#include "common/ops/layout.hpp"

namespace meshbench::ops {
namespace {

struct Expected {
  Op op;
  int n, rank;
  std::uint64_t bytes;
  std::size_t count, send, recv;
  std::uint64_t size_column, algbw_bytes;
};

// Worked by hand from nccl-tests' convention: the size is the per-rank buffer nccl-tests
// prints; the split ops round each rank's share down to whole 16-byte units (4 floats).
const std::vector<Expected> kCases = {
    // 1000 B = 250 floats.
    {Op::all_reduce, 3, 0, 1000, 250, 250, 250, 1000, 1000},
    {Op::all_gather, 3, 1, 1000, 80, 80, 240, 960, 960},  // 83 per rank -> 80
    {Op::reduce_scatter, 3, 2, 1000, 80, 240, 80, 960, 960},
    {Op::all_to_all, 3, 0, 1000, 80, 240, 240, 960, 960},
    {Op::send_recv, 3, 1, 1000, 250, 250, 500, 1000, 1000},  // a middle stage hears both neighbours
    // 1 MiB on 8 ranks: powers of two stay whole.
    {Op::all_reduce, 8, 5, 1 << 20, 1 << 18, 1 << 18, 1 << 18, 1 << 20, 1 << 20},
    {Op::all_gather, 8, 5, 1 << 20, 1 << 15, 1 << 15, 1 << 18, 1 << 20, 1 << 20},
    {Op::reduce_scatter, 8, 5, 1 << 20, 1 << 15, 1 << 18, 1 << 15, 1 << 20, 1 << 20},
    {Op::all_to_all, 8, 5, 1 << 20, 1 << 15, 1 << 18, 1 << 18, 1 << 20, 1 << 20},
    {Op::send_recv, 8, 7, 1 << 20, 1 << 18, 1 << 18, 1 << 18, 1 << 20, 1 << 20},  // the last stage: one neighbour
    // 84 B = 21 floats on 4 ranks: 5 per rank -> 4; all_reduce keeps an odd count.
    {Op::all_reduce, 4, 3, 84, 21, 21, 21, 84, 84},
    {Op::all_gather, 4, 3, 84, 4, 4, 16, 64, 64},
    {Op::reduce_scatter, 4, 0, 84, 4, 16, 4, 64, 64},
    {Op::all_to_all, 4, 2, 84, 4, 16, 16, 64, 64},
    // Below one unit per rank nothing is left to move (the runner skips such a point).
    {Op::all_gather, 2, 0, 8, 0, 0, 0, 0, 0},
    {Op::all_to_all, 2, 1, 24, 0, 0, 0, 0, 0},
    // A group of one.
    {Op::send_recv, 1, 0, 64, 16, 16, 0, 64, 64},
};

TEST(OpLayout, CountsAndBuffersPerOp) {
  for (const auto& e : kCases) {
    const OpLayout l = op_layout(e.op, e.bytes, e.rank, e.n);
    const std::string what = std::string(to_string(e.op)) + " n=" + std::to_string(e.n) + " rank=" + std::to_string(e.rank) +
                             " bytes=" + std::to_string(e.bytes);
    EXPECT_EQ(l.op, e.op) << what;
    EXPECT_EQ(l.rank, e.rank) << what;
    EXPECT_EQ(l.n, e.n) << what;
    EXPECT_EQ(l.count, e.count) << what;
    EXPECT_EQ(l.send, e.send) << what;
    EXPECT_EQ(l.recv, e.recv) << what;
    EXPECT_EQ(l.bytes, e.size_column) << what;
    EXPECT_EQ(l.algbw_bytes, e.algbw_bytes) << what;
  }
}

TEST(OpLayout, EveryOpOfTheTableHasCases) {
  for (Op op : kAllOps) {
    if (info(op).traffic_matrix) continue;  // AllToAllvSkewedMatrix below
    int cases = 0;
    for (const auto& e : kCases) cases += e.op == op ? 1 : 0;
    EXPECT_GE(cases, 2) << to_string(op) << ": add its layout to kCases";
  }
}

TEST(OpLayout, SplitOpsCountWholeSixteenByteUnits) {
  for (Op op : kAllOps) {
    if (info(op).family != Family::ring_gather && info(op).family != Family::all_to_all) continue;
    if (info(op).traffic_matrix) continue;
    for (std::uint64_t bytes : {1000ULL, 4100ULL, 65536ULL, 99999ULL}) {
      for (int n : {2, 3, 5, 8}) {
        const OpLayout l = op_layout(op, bytes, 0, n);
        EXPECT_EQ(l.count * kElementBytes % kAlignBytes, 0U) << to_string(op) << " " << bytes << " n=" << n;
        // The largest whole-unit share that fits: one more unit would not.
        EXPECT_LE(l.count * static_cast<std::size_t>(n) * kElementBytes, bytes);
        EXPECT_GT((l.count + kAlignElements) * static_cast<std::size_t>(n) * kElementBytes, bytes);
      }
    }
  }
}

TEST(OpLayout, SendRecvPeersAtFirstMiddleAndLastStage) {
  const int n = 4;
  const OpLayout first = op_layout(Op::send_recv, 4096, 0, n);
  const OpLayout middle = op_layout(Op::send_recv, 4096, 2, n);
  const OpLayout last = op_layout(Op::send_recv, 4096, 3, n);
  EXPECT_EQ(first.peers, (std::vector<int>{1}));
  EXPECT_EQ(middle.peers, (std::vector<int>{1, 3}));  // previous stage first: recv blocks follow peers
  EXPECT_EQ(last.peers, (std::vector<int>{2}));
  EXPECT_EQ(first.recv, 1024U);
  EXPECT_EQ(middle.recv, 2048U);
  EXPECT_EQ(last.recv, 1024U);
  for (const auto* l : {&first, &middle, &last}) EXPECT_EQ(l->send, 1024U);
  EXPECT_TRUE(op_layout(Op::send_recv, 4096, 0, 1).peers.empty());
}

// Row i sends m[i][j] elements to rank j; most go to rank 0 (the hot expert), none of the counts
// but the zeros are whole 16-byte units.
const TrafficMatrix kSkewed = {{5, 1, 0}, {7, 2, 3}, {9, 4, 6}};

struct A2avRank {
  int rank;
  std::vector<std::size_t> send_counts, send_displs;
  std::size_t send;
  std::vector<std::size_t> recv_counts, recv_displs;
  std::size_t recv;
  std::vector<std::size_t> sender_displs;  // where this rank's block starts in each sender's buffer
};

TEST(OpLayout, AllToAllvSkewedMatrix) {
  // Blocks padded to 4 elements: rank 0 sends 5, 1, 0 (8, 4, 0) and receives column 0: 5, 7, 9
  // (8, 8, 12); rank 1's block in sender j's buffer follows j's padded block for rank 0; rank 2
  // receives nothing from rank 0, and the empty block takes no room.
  const std::vector<A2avRank> expected = {
      {0, {5, 1, 0}, {0, 8, 12}, 12, {5, 7, 9}, {0, 8, 16}, 28, {0, 0, 0}},
      {1, {7, 2, 3}, {0, 8, 12}, 16, {1, 2, 4}, {0, 4, 8}, 12, {8, 8, 12}},
      {2, {9, 4, 6}, {0, 12, 16}, 24, {0, 3, 6}, {0, 0, 4}, 12, {12, 12, 16}},
  };
  for (const auto& e : expected) {
    const OpLayout l = op_layout(Op::all_to_allv, 48, e.rank, 3, &kSkewed);
    EXPECT_EQ(l.send_counts, e.send_counts) << "rank " << e.rank;
    EXPECT_EQ(l.send_displs, e.send_displs) << "rank " << e.rank;
    EXPECT_EQ(l.send, e.send) << "rank " << e.rank;
    EXPECT_EQ(l.recv_counts, e.recv_counts) << "rank " << e.rank;
    EXPECT_EQ(l.recv_displs, e.recv_displs) << "rank " << e.rank;
    EXPECT_EQ(l.recv, e.recv) << "rank " << e.rank;
    EXPECT_EQ(l.sender_displs, e.sender_displs) << "rank " << e.rank;
    // The size column is the requested size; algbw divides the busiest rank's traffic: rank 0
    // receives 5 + 7 + 9 = 21 elements.
    EXPECT_EQ(l.count, 12U);
    EXPECT_EQ(l.bytes, 48U);
    EXPECT_EQ(l.algbw_bytes, 21U * kElementBytes);
    for (auto d : l.send_displs) EXPECT_EQ(d * kElementBytes % kAlignBytes, 0U);
    for (auto d : l.recv_displs) EXPECT_EQ(d * kElementBytes % kAlignBytes, 0U);
  }
  EXPECT_EQ(max_rank_traffic(kSkewed), 21U);
}

TEST(DeviceBytes, BusiestRankPerOp) {
  EXPECT_EQ(device_bytes_needed(Op::all_reduce, 1000, 3), 2000U);
  EXPECT_EQ(device_bytes_needed(Op::all_gather, 1000, 3), (80U + 240U) * 4);
  EXPECT_EQ(device_bytes_needed(Op::reduce_scatter, 1000, 3), (240U + 80U) * 4);
  EXPECT_EQ(device_bytes_needed(Op::all_to_all, 1000, 3), (240U + 240U) * 4);
  EXPECT_EQ(device_bytes_needed(Op::send_recv, 1000, 3), (250U + 500U) * 4);  // the middle stage
  EXPECT_EQ(device_bytes_needed(Op::send_recv, 1000, 2), (250U + 250U) * 4);
  // all_to_allv: rank 0, the hot expert, holds 12 + 28 padded elements.
  EXPECT_EQ(device_bytes_needed(Op::all_to_allv, 48, 3, &kSkewed), 40U * kElementBytes);
}

}  // namespace
}  // namespace meshbench::ops
