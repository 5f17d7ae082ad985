// 16-byte units and boundaries in every op's buffer layout, as nccl-tests makes them.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "bench/op_spec.hpp"
#include "bench/traffic_matrix.hpp"

namespace meshbench::bench {

TEST(OpLayoutAlignment, SplitOpsCountWholeSixteenByteUnits) {
  // 1000 B on 3 ranks: 250 floats, 83 per rank, 80 in whole 16-byte units.
  for (Op op : {Op::all_gather, Op::reduce_scatter, Op::all_to_all}) {
    const auto l = op_layout(op, 1000, 0, 3);
    EXPECT_EQ(l.count, 80U) << mapping::to_string(op);
    EXPECT_EQ(l.count * kElementBytes % 16, 0U);
  }
  EXPECT_EQ(op_layout(Op::all_to_all, 1000, 0, 3).bytes, 80U * 3 * 4);
  // Below one unit per rank nothing is left to move (the runner skips such a point).
  EXPECT_EQ(op_layout(Op::all_gather, 8, 0, 2).count, 0U);
  // Powers of two stay as they were.
  EXPECT_EQ(op_layout(Op::all_to_all, 1 << 20, 0, 8).count, (1U << 18) / 8);
}

TEST(OpLayoutAlignment, AllReduceAndSendRecvKeepTheirCounts) {
  EXPECT_EQ(op_layout(Op::all_reduce, 1000, 0, 3).count, 250U);
  EXPECT_EQ(op_layout(Op::all_reduce, 8, 0, 2).count, 2U);
  EXPECT_EQ(op_layout(Op::send_recv, 1000, 1, 3).count, 250U);
}

TEST(OpLayoutAlignment, AllToAllvBlocksStartOnSixteenBytes) {
  // A skewed matrix whose counts are mostly not multiples of 4.
  const int n = 8;
  const auto m = alltoallv_matrix(n, 12345, 1.0, 3);
  bool any_odd = false;
  for (int r = 0; r < n; ++r) {
    const auto l = op_layout(Op::all_to_allv, 12345 * 4, r, n, &m);
    for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j) {
      any_odd = any_odd || l.send_counts[j] % 4 != 0;
      EXPECT_EQ(l.send_displs[j] * kElementBytes % 16, 0U);
      EXPECT_EQ(l.recv_displs[j] * kElementBytes % 16, 0U);
      EXPECT_EQ(l.sender_displs[j] * kElementBytes % 16, 0U);
      // Blocks do not overlap and fit in the buffers.
      EXPECT_LE(l.send_displs[j] + l.send_counts[j], j + 1 < l.send_displs.size() ? l.send_displs[j + 1] : l.send);
      EXPECT_LE(l.recv_displs[j] + l.recv_counts[j], j + 1 < l.recv_displs.size() ? l.recv_displs[j + 1] : l.recv);
    }
  }
  EXPECT_TRUE(any_odd) << "the test needs counts that are not whole 16-byte units";
}

TEST(OpLayoutAlignment, AllToAllvCheckFollowsThePaddedLayout) {
  // Each receiver's block from sender j is where j's layout sends it: a simulated exchange over
  // the padded buffers passes the check, and one moved element fails it.
  const int n = 4;
  const auto m = alltoallv_matrix(n, 999, 1.0, 7);
  std::vector<OpLayout> ls;
  std::vector<std::vector<float>> send;
  for (int r = 0; r < n; ++r) {
    ls.push_back(op_layout(Op::all_to_allv, 999 * 4, r, n, &m));
    send.emplace_back(ls.back().send);
    fill_send(ls.back(), send.back());
  }
  for (int r = 0; r < n; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    std::vector<float> recv(ls[ur].recv, -1.0F);
    for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j) {
      for (std::size_t k = 0; k < ls[ur].recv_counts[j]; ++k) recv[ls[ur].recv_displs[j] + k] = send[j][ls[j].send_displs[ur] + k];
    }
    EXPECT_EQ(count_wrong(ls[ur], recv), 0) << "rank " << r;
    recv[ls[ur].recv_displs[n - 1]] += 1.0F;
    EXPECT_EQ(count_wrong(ls[ur], recv), 1) << "rank " << r;
  }
}

TEST(DeviceBytesNeeded, BusiestRankOfTheGroup) {
  EXPECT_EQ(device_bytes_needed(Op::all_reduce, 1 << 20, 8), 2U << 20);  // send and receive
  EXPECT_EQ(device_bytes_needed(Op::all_gather, 1 << 20, 8), (1U << 20) + (1U << 20) / 8);
  // send_recv: a middle stage receives from both neighbours.
  EXPECT_EQ(device_bytes_needed(Op::send_recv, 1 << 20, 4), 3U << 20);
  EXPECT_EQ(device_bytes_needed(Op::send_recv, 1 << 20, 2), 2U << 20);
  // all_to_allv with skew 1 on 64 ranks: the hot expert's rank receives far more than it sends.
  const int n = 64;
  const std::uint64_t bytes = 1 << 20;
  const auto m = alltoallv_matrix(n, bytes / kElementBytes, 1.0, 1);
  std::uint64_t busiest = 0;
  for (int r = 0; r < n; ++r) {
    const auto l = op_layout(Op::all_to_allv, bytes, r, n, &m);
    busiest = std::max<std::uint64_t>(busiest, (l.send + l.recv) * kElementBytes);
  }
  EXPECT_EQ(device_bytes_needed(Op::all_to_allv, bytes, n, &m), busiest);
  EXPECT_GT(busiest, 10 * bytes);
}

}  // namespace meshbench::bench
