#include "bench/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "bench/backend_error.hpp"
#include "bench/mpi_wait.hpp"
#include "bench/src/stopping_rule.hpp"
#include "bench/src/warm_up.hpp"
#include "bench/watchdog.hpp"
#include "common/mpi/strings.hpp"

namespace meshbench::bench {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The ranks' times of each iteration as the policy says: the slowest rank's, or their mean.
void reduce_rank_times(std::vector<double>& times, MPI_Comm comm, RankTime how) {
  if (how == RankTime::max) {
    mpi_allreduce(MPI_IN_PLACE, times.data(), static_cast<int>(times.size()), MPI_DOUBLE, MPI_MAX, comm);
    return;
  }
  int size = 1;
  MPI_Comm_size(comm, &size);
  mpi_allreduce(MPI_IN_PLACE, times.data(), static_cast<int>(times.size()), MPI_DOUBLE, MPI_SUM, comm);
  for (double& t : times) t /= size;
}

// Per-iteration (or per-batch) times: this rank's own, and the slowest rank's of `reduce`.
struct Series {
  std::vector<double> local, slowest;
};

class Sampler {
 public:
  Sampler(const PointContext& ctx, MPI_Comm sync, MPI_Comm reduce) : ctx_(ctx), sync_(sync), reduce_(reduce) {}

  // The timed region holds the op alone; the barrier before it synchronises the groups.
  double synced_op() {
    const WatchedScope watched(ctx_.watchdog, ctx_.op_limit_s);
    mpi_barrier(sync_);
    return ctx_.group->run_once();
  }

  double synced_batch(int ops) {
    const WatchedScope watched(ctx_.watchdog, ctx_.limit_floor_s + ops * (ctx_.op_limit_s - ctx_.limit_floor_s));
    mpi_barrier(sync_);
    return ctx_.group->run_batch(ops) / ops;
  }

  // Warm-up, never counted (warm_up.hpp): every op's time is reduced to the slowest rank's at
  // once, so that every rank takes the same decisions.
  WarmUp warm_up(const TimingPolicy& p) {
    const WarmUp w = bench::warm_up(
        p, [this] { return synced_op(); },
        [this](double t) {
          const WatchedScope watched(ctx_.watchdog, ctx_.op_limit_s);
          mpi_allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, reduce_);
          return t;
        });
    warmup_ops_ = w.ops;
    return w;
  }

  Series per_iteration(const TimingPolicy& p) {
    warm_up(p);
    Series s;
    const auto start = Clock::now();
    int chunk = std::max(p.min_iters, 1);
    for (;;) {
      // Times stay in memory during the chunk; the reduction runs after it, outside any timing.
      std::vector<double> buf(static_cast<std::size_t>(chunk) + 1);
      for (int i = 0; i < chunk; ++i) buf[static_cast<std::size_t>(i)] = synced_op();
      s.local.insert(s.local.end(), buf.begin(), buf.end() - 1);
      buf.back() = seconds_since(start);
      // The elapsed time rides along so that every rank takes the same stopping decision.
      double elapsed = 0;
      {
        const WatchedScope watched(ctx_.watchdog, ctx_.op_limit_s);
        if (p.rank_time == RankTime::max) {
          mpi_allreduce(MPI_IN_PLACE, buf.data(), chunk + 1, MPI_DOUBLE, MPI_MAX, reduce_);
          elapsed = buf.back();
        } else {
          mpi_allreduce(&buf.back(), &elapsed, 1, MPI_DOUBLE, MPI_MAX, reduce_);
          buf.pop_back();
          reduce_rank_times(buf, reduce_, p.rank_time);
          buf.push_back(elapsed);
        }
      }
      s.slowest.insert(s.slowest.end(), buf.begin(), buf.end() - 1);
      if (enough_iterations(p, s.slowest, elapsed)) break;
      chunk = next_chunk(p, static_cast<int>(s.slowest.size()), elapsed);
    }
    return s;
  }

  Series batched(const TimingPolicy& p) {
    // Fewer ops per batch when one op is slow, so that the point keeps to its budget.
    const int ops = ops_per_batch(p, warm_up(p).op_us);
    Series s;
    for (int b = 0; b < std::max(p.batches, 1); ++b) s.local.push_back(synced_batch(ops));
    s.slowest = s.local;
    {
      const WatchedScope watched(ctx_.watchdog, ctx_.op_limit_s);
      reduce_rank_times(s.slowest, reduce_, p.rank_time);
    }
    ops_per_batch_ = ops;
    return s;
  }

  Series run(Timing timing, const TimingPolicy& p) { return timing == Timing::per_iteration ? per_iteration(p) : batched(p); }
  int warmup_ops() const { return warmup_ops_; }
  int iterations(Timing timing, const Series& s) const {
    return timing == Timing::per_iteration ? static_cast<int>(s.slowest.size()) : ops_per_batch_ * static_cast<int>(s.slowest.size());
  }

 private:
  const PointContext& ctx_;
  MPI_Comm sync_, reduce_;
  int ops_per_batch_ = 1;
  int warmup_ops_ = 0;
};

// Every rank prepares; an allocation failure on any of them is every rank's PointNotMeasured,
// so that all skip the point together rather than wait in its first op for the failed rank.
void prepare_everywhere(const PointContext& ctx, const OpLayout& layout) {
  std::string mine;
  try {
    ctx.group->prepare(layout);
  } catch (const BufferAllocationError& e) {
    mine = e.what();
  }
  int rank = 0, size = 0;
  MPI_Comm_rank(ctx.world, &rank);
  MPI_Comm_size(ctx.world, &size);
  int first = mine.empty() ? size : rank;
  {
    const WatchedScope watched(ctx.watchdog, ctx.op_limit_s);
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, ctx.world);
    if (first == size) return;
    mpi::broadcast_string(mine, ctx.world, first);
  }
  throw PointNotMeasured(mine);
}

int world_rank(MPI_Comm world) {
  int r = 0;
  MPI_Comm_rank(world, &r);
  return r;
}

int comm_rank(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}

// Gathers one record per group (sent by the group's rank 0) to world rank 0.
std::vector<std::vector<double>> gather_group_records(const PointContext& ctx, const std::vector<double>& mine, bool leader) {
  const int width = static_cast<int>(mine.size()) + 1;
  std::vector<double> send(static_cast<std::size_t>(width), -1.0);
  if (leader) {
    send[0] = ctx.group_index;
    std::copy(mine.begin(), mine.end(), send.begin() + 1);
  }
  int size = 0;
  MPI_Comm_size(ctx.world, &size);
  const bool root = world_rank(ctx.world) == 0;
  std::vector<double> all(root ? static_cast<std::size_t>(size * width) : 0);
  {
    const WatchedScope watched(ctx.watchdog, ctx.op_limit_s);
    MPI_Gather(send.data(), width, MPI_DOUBLE, all.data(), width, MPI_DOUBLE, 0, ctx.world);
  }
  std::vector<std::vector<double>> records;
  for (int r = 0; root && r < size; ++r) {
    const double* row = all.data() + static_cast<std::ptrdiff_t>(r) * width;
    if (row[0] >= 0) records.emplace_back(row, row + width);
  }
  std::sort(records.begin(), records.end());
  return records;
}

// Every rank's modelled time of the prepared op; the largest, as a dimension is as slow as its
// slowest group. One small reduction per point, after its timed part.
std::optional<double> modelled_everywhere(const PointContext& ctx) {
  double mine = ctx.group->modelled_time_us().value_or(-1.0);
  {
    const WatchedScope watched(ctx.watchdog, ctx.op_limit_s);
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_DOUBLE, MPI_MAX, ctx.world);
  }
  return mine > 0 ? std::optional<double>(mine) : std::nullopt;
}

int slowest_of(const std::vector<GroupResult>& groups) {
  int best = -1;
  double worst = -1;
  for (const auto& g : groups) {
    if (g.median_us > worst) {
      worst = g.median_us;
      best = g.group;
    }
  }
  return best;
}

}  // namespace

PointResult measure_concurrent(const PointContext& ctx, const OpLayout& layout, Timing timing, const TimingPolicy& policy, bool check,
                               bool corrupt) {
  prepare_everywhere(ctx, layout);
  Sampler sampler(ctx, ctx.world, ctx.world);
  const Series s = sampler.run(timing, policy);
  PointResult r;
  r.samples_us = s.slowest;
  r.summary = summarize(s.slowest);
  r.iters = sampler.iterations(timing, s);
  r.warmup = sampler.warmup_ops();

  // Per group: the slowest member (or the members' mean) per iteration, then that series' median and p90.
  std::vector<double> group_series = s.local;
  {
    const WatchedScope watched(ctx.watchdog, ctx.op_limit_s);
    reduce_rank_times(group_series, ctx.group_comm, policy.rank_time);
  }
  const Summary gs = summarize(group_series);
  for (const auto& rec : gather_group_records(ctx, {gs.median, gs.p90}, comm_rank(ctx.group_comm) == 0)) {
    r.groups.push_back({static_cast<int>(rec[0]), rec[1], rec[2]});
  }
  r.slowest_group = slowest_of(r.groups);
  r.modelled_us = modelled_everywhere(ctx);

  if (check) {
    const WatchedScope watched(ctx.watchdog, ctx.op_limit_s);
    std::int64_t wrong = ctx.group->check(corrupt);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT64_T, MPI_SUM, ctx.world);
    r.wrong = wrong;
  }
  return r;
}

PointResult measure_isolated(const PointContext& ctx, const OpLayout& layout, Timing timing, const TimingPolicy& policy) {
  prepare_everywhere(ctx, layout);
  Summary mine;
  int my_iters = 0, my_warmup = 0;
  // The others wait while one group measures: at most its longest warm-up and minimum iterations at the
  // op limit each (its own watchdog fires beyond that) plus twice the budget.
  const double one_group_s = 2 * policy.budget_s + (std::max(policy.warmup, 2) + kWarmUpExtraOps + policy.min_iters) * ctx.op_limit_s;
  for (int g = 0; g < ctx.group_count; ++g) {
    {
      const WatchedScope watched(ctx.watchdog, one_group_s);
      MPI_Barrier(ctx.world);
    }
    if (g != ctx.group_index) continue;
    Sampler sampler(ctx, ctx.group_comm, ctx.group_comm);
    const Series s = sampler.run(timing, policy);
    mine = summarize(s.slowest);
    my_iters = sampler.iterations(timing, s);
    my_warmup = sampler.warmup_ops();
  }
  {
    const WatchedScope watched(ctx.watchdog, one_group_s);
    MPI_Barrier(ctx.world);
  }
  PointResult r;
  const auto records = gather_group_records(ctx,
                                            {mine.min, mine.median, mine.p90, mine.p99, mine.max, mine.mean, static_cast<double>(my_iters),
                                             static_cast<double>(mine.count), static_cast<double>(my_warmup)},
                                            comm_rank(ctx.group_comm) == 0);
  for (const auto& rec : records) r.groups.push_back({static_cast<int>(rec[0]), rec[2], rec[3]});
  r.slowest_group = slowest_of(r.groups);
  for (const auto& rec : records) {
    if (static_cast<int>(rec[0]) != r.slowest_group) continue;
    r.summary = {rec[1], rec[2], rec[3], rec[4], rec[5], rec[6], static_cast<int>(rec[8])};
    r.iters = static_cast<int>(rec[7]);
    r.warmup = static_cast<int>(rec[9]);
  }
  r.modelled_us = modelled_everywhere(ctx);
  return r;
}

}  // namespace meshbench::bench
