// measure (bench/measure.hpp) and the Runner (bench/runner.hpp) driven through a fake backend
// whose ops take scripted times, under mpirun -np 2: where per-iteration timing stops, what a
// point's result holds, how wrong elements are summed, what an isolated point reports, and what
// the runner reports for one round, several rounds, resumed points, isolated points and points
// too big for the device. Every expected count is worked out from the script. Budgets are a
// million seconds, so that the clock cannot end a point, except in the one test where a
// nanosecond's budget must end it at the first look; policies otherwise keep their defaults
// (5 warm-up ops, 2% precision). Both ranks run every test in the same order, so that their
// collectives meet; ASSERT stands only where no collective follows.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "bench/measure.hpp"
#include "bench/op_spec.hpp"
#include "bench/runner.hpp"
#include "bench/sensors/nic_counter_sampler.hpp"
#include "mapping/mapping.hpp"

namespace meshbench::bench {

namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int world_size() {
  int n = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// The op time of op n of a point (prepare starts a point; n counts from 0, warm-up included).
using Script = std::function<double(std::size_t n)>;

// A group whose ops take scripted times; check() finds one wrong element when told to corrupt.
class ScriptedGroup final : public GroupComm {
 public:
  explicit ScriptedGroup(Script script, std::optional<double> modelled = std::nullopt) : script_(std::move(script)), modelled_(modelled) {}
  void prepare(const OpLayout& /*layout*/) override { ops_ = 0; }
  double run_once() override { return script_(ops_++); }
  double run_batch(int ops) override {
    double total = 0;
    for (int i = 0; i < ops; ++i) total += run_once();
    return total;
  }
  std::int64_t check(bool corrupt) override { return corrupt ? 1 : 0; }
  std::optional<double> modelled_time_us() override { return modelled_; }

 private:
  Script script_;
  std::optional<double> modelled_;
  std::size_t ops_ = 0;
};

class ScriptedBackend final : public Backend {
 public:
  explicit ScriptedBackend(Script script, std::uint64_t memory = 0) : script_(std::move(script)), memory_(memory) {}
  std::string_view name() const override { return "scripted"; }
  std::unique_ptr<GroupComm> make_group(MPI_Comm /*group*/) override { return std::make_unique<ScriptedGroup>(script_); }
  std::uint64_t device_memory_bytes() const override { return memory_; }

 private:
  Script script_;
  std::uint64_t memory_;
};

Script constant(double us) {
  return [us](std::size_t) { return us; };
}

// Five steady warm-up ops, then `noisy` ops alternating 100 and 400 µs, then 100 µs.
Script noisy_then_steady(std::size_t noisy) {
  return [noisy](std::size_t n) {
    if (n < 5 || n >= 5 + noisy) return 100.0;
    return (n - 5) % 2 == 0 ? 100.0 : 400.0;
  };
}

PointResult measure_world(ScriptedGroup& g, const TimingPolicy& p, Timing timing = Timing::per_iteration, bool check = false,
                          bool corrupt = false) {
  PointContext ctx;
  ctx.world = MPI_COMM_WORLD;
  ctx.group_comm = MPI_COMM_WORLD;
  ctx.group = &g;
  return measure_concurrent(ctx, op_layout(Op::all_reduce, 1024, world_rank(), world_size()), timing, p, check, corrupt);
}

}  // namespace

TEST(Measure, SteadyOpsStopAtMinIters) {
  ScriptedGroup g(constant(100.0));
  const auto r = measure_world(g, TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1e6});
  EXPECT_EQ(r.warmup, 5);
  EXPECT_EQ(r.iters, 20);  // a zero-width interval at the first look
  EXPECT_EQ(r.samples_us.size(), 20U);
  EXPECT_EQ(r.summary.median, 100.0);
  EXPECT_EQ(r.summary.count, 20);
  EXPECT_EQ(r.wrong, -1);  // not checked
}

TEST(Measure, ANeverNarrowIntervalRunsToMaxIters) {
  ScriptedGroup g(noisy_then_steady(1'000'000));
  const auto r = measure_world(g, TimingPolicy{.min_iters = 20, .max_iters = 200, .budget_s = 1e6});
  EXPECT_EQ(r.iters, 200);  // looks at 20, 40, 80, 160, then the 40 left
  EXPECT_EQ(r.summary.min, 100.0);
  EXPECT_EQ(r.summary.max, 400.0);
}

TEST(Measure, StopsWhereTheIntervalNarrows) {
  // 20 noisy samples, then steady ones: at the second look (40 samples: 30 of 100, 10 of 400)
  // both ends of the median's interval are 100 µs.
  ScriptedGroup g(noisy_then_steady(20));
  const auto r = measure_world(g, TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1e6});
  EXPECT_EQ(r.iters, 40);
  EXPECT_EQ(r.summary.median, 100.0);
}

TEST(Measure, ASpentBudgetStopsANoisyPointAtMinIters) {
  // A budget of a nanosecond: the warm-up stops after its second op (a fifth of the budget is
  // spent), and the first look at min_iters finds the budget spent.
  ScriptedGroup g(noisy_then_steady(1'000'000));
  const auto r = measure_world(g, TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1e-9});
  EXPECT_EQ(r.warmup, 2);
  EXPECT_EQ(r.iters, 20);
}

TEST(Measure, TheSlowestRankIsThePointsTime) {
  ScriptedGroup g(constant(world_rank() == 1 ? 300.0 : 100.0));
  const auto r = measure_world(g, TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1e6});
  EXPECT_EQ(r.summary.median, 300.0);
  EXPECT_EQ(r.summary.min, 300.0);
  if (world_rank() == 0) {
    ASSERT_EQ(r.groups.size(), 1U);
    EXPECT_EQ(r.groups[0].median_us, 300.0);
    EXPECT_EQ(r.slowest_group, 0);
  }
}

// A library's modelled time is the largest over the ranks (the slowest group's), none when no
// rank models the op.
TEST(Measure, ThePointsModelledTimeIsTheLargestOverTheRanks) {
  const TimingPolicy p{.min_iters = 20, .max_iters = 2000, .budget_s = 1e6};
  ScriptedGroup none(constant(100.0));
  EXPECT_EQ(measure_world(none, p).modelled_us, std::nullopt);
  ScriptedGroup modelled(constant(100.0), world_rank() == 1 ? 30.0 : 20.0);
  EXPECT_EQ(measure_world(modelled, p).modelled_us, 30.0);
  ScriptedGroup one_rank(constant(100.0), world_rank() == 0 ? std::optional<double>(7.0) : std::nullopt);
  EXPECT_EQ(measure_world(one_rank, p).modelled_us, 7.0);
}

TEST(Measure, WrongElementsAreSummedOverTheWorld) {
  ScriptedGroup g(constant(100.0));
  EXPECT_EQ(measure_world(g, TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1e6}, Timing::per_iteration, true, false).wrong,
            0);
  EXPECT_EQ(measure_world(g, TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1e6}, Timing::per_iteration, true, true).wrong,
            world_size());
  EXPECT_EQ(
      measure_world(g, TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1e6}, Timing::per_iteration, true, world_rank() == 1)
          .wrong,
      1);
}

TEST(Measure, BatchesAreSizedFromTheWarmUp) {
  // 100 µs ops, a 1 s budget over 5 batches: 200 ms per batch holds 2000, capped at 20 ops.
  ScriptedGroup g(constant(100.0));
  const auto r = measure_world(g, TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1.0}, Timing::batched);
  EXPECT_EQ(r.iters, 5 * 20);
  EXPECT_EQ(r.samples_us.size(), 5U);
  EXPECT_EQ(r.summary.median, 100.0);
}

TEST(Measure, IsolatedGroupsReportTheSlowestGroupsPoint) {
  // Each rank its own group: group 1's ops take 200 µs, group 0's 100 µs.
  MPI_Comm alone = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank(), 0, &alone);
  ScriptedGroup g(constant(world_rank() == 1 ? 200.0 : 100.0));
  PointContext ctx;
  ctx.world = MPI_COMM_WORLD;
  ctx.group_comm = alone;
  ctx.group_index = world_rank();
  ctx.group_count = world_size();
  ctx.group = &g;
  const auto r = measure_isolated(ctx, op_layout(Op::all_reduce, 1024, 0, 1), Timing::per_iteration,
                                  TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1e6});
  if (world_rank() == 0) {
    ASSERT_EQ(r.groups.size(), 2U);
    EXPECT_EQ(r.groups[0].median_us, 100.0);
    EXPECT_EQ(r.groups[1].median_us, 200.0);
    EXPECT_EQ(r.slowest_group, 1);
    EXPECT_EQ(r.summary.median, 200.0);
    EXPECT_EQ(r.iters, 20);
    EXPECT_EQ(r.warmup, 5);
  }
  MPI_Comm_free(&alone);
}

namespace {

// What the runner told rank 0's reporter, in order.
class RecordingReporter final : public Reporter {
 public:
  void begin_mapping(const mapping::Mapping& m, int index, int count) override {
    events.push_back("mapping " + m.name + " " + std::to_string(index) + "/" + std::to_string(count));
  }
  void begin_dimension(mapping::Dim dim, int groups, int group_size, const std::string& skipped) override {
    events.push_back("dimension " + std::string(mapping::to_string(dim)) + " " + std::to_string(groups) + "x" + std::to_string(group_size) +
                     (skipped.empty() ? "" : " skipped"));
  }
  void point(const results::PointRecord& p) override { points.push_back(p); }
  void point_skipped(const results::Failure& f) override { not_measured.push_back(f); }
  void end_run(bool complete) override { ended = complete; }

  std::vector<std::string> events;
  std::vector<results::PointRecord> points;
  std::vector<results::Failure> not_measured;
  bool ended = false;
};

// Two mappings of TP = 2 on the two ranks: in slot order and swapped.
std::vector<mapping::Mapping> two_mappings() {
  mapping::Layout l;
  l.world = 2;
  l.tp = 2;
  return {mapping::make_mapping("straight", "slot order", l, {0, 1}), mapping::make_mapping("swapped", "swapped", l, {1, 0})};
}

RunOptions options_for_test() {
  RunOptions o;
  o.ops = {Op::all_reduce};
  o.sizes = {1024, 4096};
  o.timings = {Timing::per_iteration};
  o.policy = TimingPolicy{.min_iters = 20, .max_iters = 2000, .budget_s = 1e6};
  return o;
}

std::string point_name(const results::PointRecord& p) {
  return p.row.point.mapping + " " + p.row.point.dim + " " + p.row.point.op + " " + std::to_string(p.row.point.bytes) + " " +
         p.row.point.concurrency;
}

struct RunnerRun {
  RecordingReporter reporter;
  int counted = 0;
  std::vector<std::string> over_memory;
};

void run_runner(RunnerRun& out, const RunOptions& options, std::uint64_t memory = 0, const std::vector<results::PointKey>& completed = {}) {
  ScriptedBackend backend(constant(100.0), memory);
  Runner runner(MPI_COMM_WORLD, backend, options, {0, 1}, nullptr, world_rank() == 0 ? &out.reporter : nullptr);
  runner.skip(completed);
  const auto mappings = two_mappings();
  out.counted = runner.count_points(mappings);
  out.over_memory = runner.points_over_memory(mappings);
  runner.run(mappings);
}

}  // namespace

TEST(Runner, OneRoundReportsEveryPointInTheNaturalOrder) {
  RunnerRun run;
  run_runner(run, options_for_test());
  EXPECT_EQ(run.counted, 4);
  EXPECT_TRUE(run.over_memory.empty());
  if (world_rank() != 0) return;  // no collective follows
  const auto& r = run.reporter;
  EXPECT_TRUE(r.ended);
  EXPECT_EQ(r.events, (std::vector<std::string>{"mapping straight 0/2", "dimension tp 1x2", "mapping swapped 1/2", "dimension tp 1x2"}));
  ASSERT_EQ(r.points.size(), 4U);
  std::vector<std::string> keys;
  for (const auto& p : r.points) keys.push_back(point_name(p));
  EXPECT_EQ(keys, (std::vector<std::string>{"straight tp all_reduce 1024 concurrent", "straight tp all_reduce 4096 concurrent",
                                            "swapped tp all_reduce 1024 concurrent", "swapped tp all_reduce 4096 concurrent"}));
  for (const auto& p : r.points) {
    EXPECT_EQ(p.row.iters, 20);
    EXPECT_EQ(p.row.warmup, 5);
    EXPECT_EQ(p.row.t_median_us, 100.0);
    EXPECT_EQ(p.row.wrong, 0);
    EXPECT_EQ(p.row.group_size, 2);
    EXPECT_EQ(p.row.groups, 1);
    EXPECT_EQ(p.row.backend, "scripted");
    EXPECT_EQ(p.samples.size(), 20U);
    EXPECT_TRUE(p.rounds.empty());
  }
}

TEST(Runner, RoundsPoolEveryRoundIntoOneRow) {
  RunOptions o = options_for_test();
  o.rounds = 3;
  RunnerRun run;
  run_runner(run, o);
  if (world_rank() != 0) return;
  const auto& r = run.reporter;
  EXPECT_TRUE(r.ended);
  ASSERT_EQ(r.points.size(), 4U);
  std::vector<std::string> keys;
  for (const auto& p : r.points) {
    keys.push_back(point_name(p));
    // Each round stops at min_iters (steady ops): 3 × 20 samples pooled, one median per round.
    EXPECT_EQ(p.row.iters, 60);
    EXPECT_EQ(p.samples.size(), 60U);
    ASSERT_EQ(p.rounds.size(), 3U);
    for (std::size_t k = 0; k < p.rounds.size(); ++k) {
      EXPECT_EQ(p.rounds[k].round, static_cast<int>(k));
      EXPECT_EQ(p.rounds[k].t_median_us, 100.0);
    }
    EXPECT_EQ(p.row.t_median_us, 100.0);
    EXPECT_EQ(p.row.warmup, 5);  // the first round's
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"straight tp all_reduce 1024 concurrent", "straight tp all_reduce 4096 concurrent",
                                            "swapped tp all_reduce 1024 concurrent", "swapped tp all_reduce 4096 concurrent"}));
  // A table starts wherever the mapping changes in the last round's order.
  const auto tables = std::count_if(r.events.begin(), r.events.end(), [](const std::string& e) { return e.rfind("mapping ", 0) == 0; });
  EXPECT_GE(tables, 2);
  EXPECT_LE(tables, 4);
}

TEST(Runner, PointsAlreadyStoredAreLeftOut) {
  RunnerRun run;
  run_runner(run, options_for_test(), 0, {{"", "straight", "tp", "all_reduce", "per_iteration", "concurrent", 1024}});
  if (world_rank() != 0) return;
  std::vector<std::string> keys;
  for (const auto& p : run.reporter.points) keys.push_back(point_name(p));
  EXPECT_EQ(keys, (std::vector<std::string>{"straight tp all_reduce 4096 concurrent", "swapped tp all_reduce 1024 concurrent",
                                            "swapped tp all_reduce 4096 concurrent"}));
}

TEST(Runner, IsolatedPointsFollowEachConcurrentOne) {
  RunOptions o = options_for_test();
  o.isolated = true;
  RunnerRun run;
  run_runner(run, o);
  EXPECT_EQ(run.counted, 8);
  if (world_rank() != 0) return;
  ASSERT_EQ(run.reporter.points.size(), 8U);
  EXPECT_EQ(point_name(run.reporter.points[0]), "straight tp all_reduce 1024 concurrent");
  EXPECT_EQ(point_name(run.reporter.points[1]), "straight tp all_reduce 1024 isolated");
  EXPECT_EQ(run.reporter.points[1].row.groups, 1);
}

TEST(Runner, PointsTooBigForTheDeviceAreSkippedAndSaidOnce) {
  // Room for the 1 KiB point's buffers exactly: the 4 KiB point of each mapping is skipped.
  const std::uint64_t room = device_bytes_needed(Op::all_reduce, 1024, 2);
  ASSERT_LT(room, device_bytes_needed(Op::all_reduce, 4096, 2));
  RunnerRun run;
  run_runner(run, options_for_test(), room);
  EXPECT_EQ(run.counted, 2);
  ASSERT_EQ(run.over_memory.size(), 1U);  // the same (dimension, op, size) in both mappings
  EXPECT_EQ(run.over_memory[0].rfind("tp all_reduce 4 KiB needs ", 0), 0U) << run.over_memory[0];
  if (world_rank() != 0) return;
  EXPECT_EQ(run.reporter.points.size(), 2U);
  ASSERT_EQ(run.reporter.not_measured.size(), 2U);
  EXPECT_EQ(run.reporter.not_measured[0].mapping, "straight");
  EXPECT_EQ(run.reporter.not_measured[1].mapping, "swapped");
  EXPECT_EQ(run.reporter.not_measured[0].bytes, 4096U);
}

TEST(Runner, ARetransmitIsAttributedToThePointItHappenedIn) {
  // Both ranks share one host: its first rank reads canned EFA trees, t0 before the first point,
  // t1 after it and before the second, t2 after the second (tests/data/nic-counters/README.md).
  const std::string trees = std::string(MESHBENCH_TEST_DATA) + "/nic-counters/efa/";
  NicCounterSampler sampler(MPI_COMM_WORLD, "/", {trees + "t0", trees + "t1", trees + "t1", trees + "t2"});
  EXPECT_EQ(sampler.error(), "");
  RunOptions o = options_for_test();
  RunnerRun run;
  ScriptedBackend backend(constant(100.0));
  Runner runner(MPI_COMM_WORLD, backend, o, {0, 1}, nullptr, world_rank() == 0 ? &run.reporter : nullptr);
  runner.add_sampler(sampler);
  runner.run({two_mappings().front()});
  if (world_rank() != 0) return;
  ASSERT_EQ(run.reporter.points.size(), 2U);
  const auto& first = run.reporter.points[0].readings.nic_counters;
  const auto& second = run.reporter.points[1].readings.nic_counters;
  ASSERT_EQ(first.size(), 3U);  // one host: efa_0, efa_1, eth0
  ASSERT_EQ(second.size(), 3U);
  for (const auto* rows : {&first, &second}) {
    for (const auto& d : *rows) {
      EXPECT_EQ(d.ops, 5 + 20 + 1);  // warm-up, timed, the check's
      EXPECT_EQ(d.round, 0);
      EXPECT_EQ(d.attempt, 1);
      EXPECT_EQ(d.point.mapping, "straight");
    }
  }
  EXPECT_EQ(first[0].point.bytes, 1024U);
  EXPECT_EQ(second[0].point.bytes, 4096U);
  EXPECT_EQ(first[0].nic, "efa_0:1");
  EXPECT_EQ(first[0].get(results::NicCounter::tx_bytes), 1048576);
  EXPECT_EQ(first[0].get(results::NicCounter::retrans_packets), 0);
  EXPECT_EQ(first[1].get(results::NicCounter::rx_dropped), 0);
  EXPECT_EQ(second[0].get(results::NicCounter::tx_bytes), 2 * 1048576);
  EXPECT_EQ(second[0].get(results::NicCounter::retrans_packets), 1);
  EXPECT_EQ(second[1].nic, "efa_1:1");
  EXPECT_EQ(second[1].get(results::NicCounter::rx_dropped), 1);
}

}  // namespace meshbench::bench

// Both ranks run every test; only rank 0 prints, and the exit status is the worst rank's.
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  testing::InitGoogleTest(&argc, argv);
  if (meshbench::bench::world_rank() != 0)
    delete testing::UnitTest::GetInstance()->listeners().Release(testing::UnitTest::GetInstance()->listeners().default_result_printer());
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
