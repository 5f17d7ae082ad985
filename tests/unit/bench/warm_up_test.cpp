// Warm-up and batch sizing with a fake backend: ops take scripted times, no MPI, no clock.
#include <gtest/gtest.h>

#include <vector>

#include "bench/backend.hpp"
#include "bench/src/warm_up.hpp"

namespace meshbench::bench {

namespace {

// A group whose n-th op takes times[n] µs (the last entry repeats).
class ScriptedGroup final : public GroupComm {
 public:
  explicit ScriptedGroup(std::vector<double> times) : times_(std::move(times)) {}
  void prepare(const OpLayout& /*layout*/) override {}
  double run_once() override {
    const double t = times_[std::min(ops_, times_.size() - 1)];
    ++ops_;
    return t;
  }
  double run_batch(int ops) override {
    double total = 0;
    for (int i = 0; i < ops; ++i) total += run_once();
    return total;
  }
  std::int64_t check(bool /*corrupt*/) override { return 0; }
  std::size_t ops() const { return ops_; }

 private:
  std::vector<double> times_;
  std::size_t ops_ = 0;
};

WarmUp warm_up_of(ScriptedGroup& g, const TimingPolicy& p) {
  return warm_up(
      p, [&g] { return g.run_once(); }, [](double t) { return t; });
}

}  // namespace

TEST(WarmUp, SlowFirstOpChangesNeitherWarmUpNorBatch) {
  const TimingPolicy p;  // 5 warm-up ops, 20 ops per batch, 5 batches, 1 s
  ScriptedGroup steady({100.0});
  // 500 ms: a first op over 200 ms used to give one op per batch and no further warm-up.
  ScriptedGroup slow_first({500e3, 100.0});
  const WarmUp a = warm_up_of(steady, p), b = warm_up_of(slow_first, p);
  EXPECT_EQ(a.ops, 5);
  EXPECT_EQ(b.ops, a.ops);
  EXPECT_EQ(steady.ops(), 5U);
  EXPECT_EQ(slow_first.ops(), 5U);
  EXPECT_DOUBLE_EQ(b.op_us, 100.0);
  EXPECT_EQ(ops_per_batch(p, a.op_us), 20);
  EXPECT_EQ(ops_per_batch(p, b.op_us), ops_per_batch(p, a.op_us));
  // 15 ms (over 10 ms used to give fewer than 20 ops per batch).
  ScriptedGroup slowish_first({15e3, 100.0});
  EXPECT_EQ(ops_per_batch(p, warm_up_of(slowish_first, p).op_us), 20);
}

TEST(WarmUp, ContinuesUntilOpTimesAgree) {
  const TimingPolicy p;
  // A second slow phase (NCCL switching protocol, a second connection): warm-up goes on until
  // the last two ops agree, and the slow one does not size the batch.
  ScriptedGroup g({500e3, 100.0, 100.0, 100.0, 40e3, 100.0, 100.0});
  const WarmUp w = warm_up_of(g, p);
  EXPECT_EQ(w.ops, 7);  // op 5 (40 ms) and op 6 disagree; 6 and 7 agree
  EXPECT_DOUBLE_EQ(w.op_us, 100.0);
  EXPECT_EQ(ops_per_batch(p, w.op_us), 20);
}

TEST(WarmUp, NeverAgreeingOpsStopAtTheCap) {
  const TimingPolicy p;
  std::vector<double> times;
  for (int i = 0; i < 100; ++i) times.push_back(i % 2 == 0 ? 100.0 : 400.0);
  ScriptedGroup g(times);
  EXPECT_EQ(warm_up_of(g, p).ops, std::max(p.warmup, 2) + kWarmUpExtraOps);
}

TEST(WarmUp, SlowOpsKeepToAFifthOfTheBudget) {
  TimingPolicy p;
  p.budget_s = 1.0;
  ScriptedGroup g({900e3, 100e3});  // 100 ms ops: two after the first fit in 200 ms
  const WarmUp w = warm_up_of(g, p);
  EXPECT_EQ(w.ops, 3);
  EXPECT_EQ(ops_per_batch(p, w.op_us), 2);  // 200 ms per batch
}

TEST(WarmUp, FewerWarmUpsAskedStillSizeFromASecondOp) {
  TimingPolicy p;
  p.warmup = 0;
  ScriptedGroup g({500e3, 100.0});
  const WarmUp w = warm_up_of(g, p);
  EXPECT_EQ(w.ops, 2);
  EXPECT_DOUBLE_EQ(w.op_us, 100.0);
}

TEST(WarmUp, EveryDecisionUsesTheSlowestRanksTime) {
  // This rank is fast; the reduction says another rank took 100 ms per op: the decisions follow
  // the reduced times, as they do identically on every rank.
  const TimingPolicy p;
  ScriptedGroup g({10.0});
  int reductions = 0;
  const WarmUp w = warm_up(
      p, [&g] { return g.run_once(); },
      [&reductions](double) {
        ++reductions;
        return 100e3;
      });
  EXPECT_EQ(w.ops, 3);
  EXPECT_EQ(reductions, 3);
  EXPECT_DOUBLE_EQ(w.op_us, 100e3);
}

}  // namespace meshbench::bench
