// The NCCL backend's decisions without NCCL: calls per op, the all-to-all path the loaded
// library allows, the refused environment.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "bench/src/nccl_calls.hpp"
#include "bench/traffic_matrix.hpp"

namespace meshbench::bench {

namespace {

using Kind = NcclCall::Kind;

int count_of(const std::vector<NcclCall>& calls, Kind kind) {
  return static_cast<int>(std::count_if(calls.begin(), calls.end(), [kind](const NcclCall& c) { return c.kind == kind; }));
}

}  // namespace

TEST(NcclPlan, OldRuntimeTakesGroupedSendRecvForAllToAll) {
  // Headers of 2.28.9 here, but a 2.27.3 library loaded at run time: no ncclAlltoAll.
  const bool native = native_all_to_all(22703, true);
  EXPECT_FALSE(native);
  const auto l = op_layout(Op::all_to_all, 1 << 20, 1, 4);
  const auto calls = nccl_calls(l, native);
  ASSERT_EQ(calls.size(), 2U + 2 * 4);
  EXPECT_EQ(calls.front().kind, Kind::group_start);
  EXPECT_EQ(calls.back().kind, Kind::group_end);
  EXPECT_EQ(count_of(calls, Kind::all_to_all), 0);
  for (int peer = 0; peer < 4; ++peer) {
    const auto at = static_cast<std::size_t>(peer) * l.count;
    EXPECT_EQ(calls[1 + 2 * static_cast<std::size_t>(peer)], (NcclCall{Kind::send, at, 0, l.count, peer}));
    EXPECT_EQ(calls[2 + 2 * static_cast<std::size_t>(peer)], (NcclCall{Kind::recv, 0, at, l.count, peer}));
  }
}

TEST(NcclPlan, NewRuntimeWithTheSymbolTakesAlltoAll) {
  EXPECT_TRUE(native_all_to_all(22809, true));
  EXPECT_TRUE(native_all_to_all(22800, true));
  EXPECT_FALSE(native_all_to_all(22809, false));  // version says yes, the library lacks the symbol
  EXPECT_FALSE(native_all_to_all(2708, true));    // the pre-2.9 version scheme
  const auto calls = nccl_calls(op_layout(Op::all_to_all, 1 << 20, 0, 4), true);
  ASSERT_EQ(calls.size(), 1U);
  EXPECT_EQ(calls[0], (NcclCall{Kind::all_to_all, 0, 0, (1U << 18) / 4, -1}));
}

TEST(NcclPlan, NcclsModelIsAskedForTheRingCollectivesOfARecentLibrary) {
  EXPECT_TRUE(can_simulate(22200, true));
  EXPECT_TRUE(can_simulate(22809, true));
  EXPECT_FALSE(can_simulate(22105, true));   // 2.21: no ncclGroupSimulateEnd
  EXPECT_FALSE(can_simulate(22809, false));  // headers say yes, the library lacks the symbol
  EXPECT_TRUE(simulated_op(nccl_calls(op_layout(Op::all_reduce, 1 << 20, 0, 4), true)));
  EXPECT_TRUE(simulated_op(nccl_calls(op_layout(Op::reduce_scatter, 1 << 20, 0, 4), true)));
  EXPECT_FALSE(simulated_op(nccl_calls(op_layout(Op::send_recv, 1 << 20, 0, 4), true)));
  EXPECT_FALSE(simulated_op(nccl_calls(op_layout(Op::all_to_all, 1 << 20, 0, 4), false)));
  EXPECT_FALSE(simulated_op({}));
  EXPECT_EQ(usable_estimate_us(12.5F), 12.5);
  EXPECT_EQ(usable_estimate_us(-1.0F), std::nullopt);  // NCCL_UNDEF_FLOAT
  EXPECT_EQ(usable_estimate_us(0.0F), std::nullopt);
  EXPECT_EQ(usable_estimate_us(std::numeric_limits<float>::infinity()), std::nullopt);
}

TEST(NcclPlan, AllToAllvSkipsZeroCountsOnBothSides) {
  TrafficMatrix m = {{0, 5, 0}, {7, 0, 9}, {0, 3, 0}};
  const auto l = op_layout(Op::all_to_allv, 36, 1, 3, &m);
  const auto calls = nccl_calls(l, true);
  // Rank 1 sends 7 to rank 0 and 9 to rank 2, receives 5 from 0 and 3 from 2; nothing to itself.
  EXPECT_EQ(count_of(calls, Kind::send), 2);
  EXPECT_EQ(count_of(calls, Kind::recv), 2);
  for (const auto& c : calls) {
    EXPECT_EQ((c.kind == Kind::send ? c.send_offset : c.recv_offset) % kAlignElements, 0U);
  }
  EXPECT_EQ(calls[1], (NcclCall{Kind::send, 0, 0, 7, 0}));
  EXPECT_EQ(calls[2], (NcclCall{Kind::recv, 0, 0, 5, 0}));
  EXPECT_EQ(calls[3], (NcclCall{Kind::send, 8, 0, 9, 2}));  // after 7, padded to 8
  EXPECT_EQ(calls[4], (NcclCall{Kind::recv, 0, 8, 3, 2}));  // after 5, padded to 8
}

TEST(NcclPlan, SendRecvExchangesWithBothNeighbours) {
  const auto l = op_layout(Op::send_recv, 64, 1, 3);
  const auto calls = nccl_calls(l, true);
  ASSERT_EQ(calls.size(), 6U);
  EXPECT_EQ(calls[1], (NcclCall{Kind::send, 0, 0, 16, 0}));
  EXPECT_EQ(calls[2], (NcclCall{Kind::recv, 0, 0, 16, 0}));
  EXPECT_EQ(calls[3], (NcclCall{Kind::send, 0, 0, 16, 2}));
  EXPECT_EQ(calls[4], (NcclCall{Kind::recv, 0, 16, 16, 2}));
}

TEST(NcclPlan, CollectivesAreOneCall) {
  for (Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter}) {
    const auto l = op_layout(op, 4096, 0, 4);
    const auto calls = nccl_calls(l, false);
    ASSERT_EQ(calls.size(), 1U);
    EXPECT_EQ(calls[0].count, l.count);
  }
}

TEST(NcclPlan, NonBlockingCommunicatorsRefused) {
  EXPECT_FALSE(nccl_environment_refusal(nullptr));
  EXPECT_FALSE(nccl_environment_refusal(""));
  EXPECT_FALSE(nccl_environment_refusal("1"));
  const auto refusal = nccl_environment_refusal("0");
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->find("NCCL_COMM_BLOCKING=0"), std::string::npos);
  EXPECT_NE(refusal->find("unset NCCL_COMM_BLOCKING"), std::string::npos);
  EXPECT_EQ(refusal->find('\n'), std::string::npos);
}

TEST(NcclPlan, InProgressInitIsWaitedFor) {
  // ncclCommInitRank returned ncclInProgress: the communicator is usable only once
  // ncclCommGetAsyncError stops saying so; the wait sleeps meanwhile (fake clock).
  std::chrono::steady_clock::time_point t{};
  WaitCalls clock;
  clock.now = [&t] { return t; };
  clock.sleep = [&t](std::chrono::microseconds d) { t += d; };
  clock.yield = [&t] { t += std::chrono::microseconds(1); };
  int polls = 0;
  const auto ready_after_2s = [&] {
    ++polls;
    return t >= std::chrono::steady_clock::time_point{} + std::chrono::seconds(2) ? NcclState::success : NcclState::in_progress;
  };
  EXPECT_EQ(await_settled(ready_after_2s, std::chrono::seconds(60), clock), NcclState::success);
  EXPECT_GE(t - std::chrono::steady_clock::time_point{}, std::chrono::seconds(2));
  EXPECT_GT(polls, 1);

  // An init that fails while in progress ends the wait with the error.
  int calls = 0;
  EXPECT_EQ(await_settled([&] { return ++calls < 3 ? NcclState::in_progress : NcclState::error; }, std::chrono::seconds(60), clock),
            NcclState::error);
  EXPECT_EQ(calls, 3);

  // One that never settles is given up at the limit, still in progress (the caller fails it).
  t = {};
  EXPECT_EQ(await_settled([] { return NcclState::in_progress; }, std::chrono::seconds(5), clock), NcclState::in_progress);
  EXPECT_GE(t - std::chrono::steady_clock::time_point{}, std::chrono::seconds(5));
  EXPECT_LT(t - std::chrono::steady_clock::time_point{}, std::chrono::seconds(6));
}

}  // namespace meshbench::bench
