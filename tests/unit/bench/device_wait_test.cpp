// The backend's wait loop with a fake op: it gives the core away over a long op and still sees
// a short one at once.
#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <stdexcept>

#include "bench/src/device_wait.hpp"

namespace meshbench::bench {

namespace {

using namespace std::chrono_literals;

// A fake clock that moves only when the loop yields or sleeps (a yield costs 1 µs here), and an
// op that completes at `op_length` on it.
struct FakeOp {
  std::chrono::steady_clock::time_point t{};
  std::chrono::microseconds op_length;
  std::chrono::microseconds asleep{0};

  WaitCalls calls() {
    const auto start = t;
    WaitCalls c;
    c.done = [this, start] { return t - start >= op_length; };
    c.now = [this] { return t; };
    c.sleep = [this](std::chrono::microseconds d) {
      t += d;
      asleep += d;
    };
    c.yield = [this] { t += 1us; };
    return c;
  }
};

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

TEST(DeviceWait, SleepsThroughALongOp) {
  FakeOp op{{}, 1s};
  WaitStats stats;
  ASSERT_TRUE(wait_until_done(op.calls(), 60s, &stats));
  // All but the first millisecond (yields) is spent asleep: the core is free for NCCL's proxy.
  EXPECT_GE(op.asleep, 1s - kWaitSpinFor - kWaitSleep);
  EXPECT_EQ(stats.slept, op.asleep);
  EXPECT_LE(stats.yields, kWaitSpinFor.count() + 1);
  EXPECT_EQ(stats.polls, stats.yields + stats.sleeps + 1);
}

TEST(DeviceWait, ShortOpNeverSleeps) {
  FakeOp op{{}, 200us};
  WaitStats stats;
  ASSERT_TRUE(wait_until_done(op.calls(), 60s, &stats));
  EXPECT_EQ(stats.sleeps, 0);
  EXPECT_EQ(op.asleep, 0us);
  EXPECT_EQ(stats.yields, 200);  // every idle pass yields; none spins without giving the core away
}

TEST(DeviceWait, GivesUpPastTheLimit) {
  FakeOp op{{}, 10s};
  EXPECT_FALSE(wait_until_done(op.calls(), 2s));
  EXPECT_LT(op.t - std::chrono::steady_clock::time_point{}, 2s + 2 * kWaitSleep);
}

TEST(DeviceWait, ErrorsOfThePollEndTheWait) {
  WaitCalls c;
  c.done = []() -> bool { throw std::runtime_error("ncclRemoteError"); };
  EXPECT_THROW(wait_until_done(c, 1s), std::runtime_error);
}

TEST(DeviceWait, RealClockLeavesTheCoreMostlyIdle) {
  // The real loop over a 300 ms "op": the thread's CPU time stays a small share of the wait.
  // A spinning loop uses the whole wait; a busier machine only lengthens the sleeps.
  const auto start = std::chrono::steady_clock::now();
  WaitCalls c;
  c.done = [start] { return std::chrono::steady_clock::now() - start >= 300ms; };
  const double cpu0 = thread_cpu_s();
  ASSERT_TRUE(wait_until_done(c, 60s));
  const double cpu = thread_cpu_s() - cpu0;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(cpu, 0.5 * wall) << "cpu " << cpu << " s over " << wall << " s";
}

}  // namespace meshbench::bench
