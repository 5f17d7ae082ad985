// The run's shared driver (bench/measure.hpp) under mpirun -np 2 with fake groups whose ops take
// scripted times: a slow first op leaves warm-up count and ops per batch as they are; a rank
// that cannot allocate a point's buffers makes every rank skip the point, and the next point
// still runs; --rank-time max and avg reduce the ranks' times as they say. Prints one line per
// check and exits 1 on any failure.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/backend.hpp"
#include "bench/backend_error.hpp"
#include "bench/measure.hpp"
#include "bench/op_spec.hpp"

namespace bench = meshbench::bench;

namespace {

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

// Op n of each point takes times[n] µs (the last entry repeats) times `scale`; prepare fails
// with BufferAllocationError for sizes above `fail_above` bytes.
class ScriptedGroup final : public bench::GroupComm {
 public:
  ScriptedGroup(std::vector<double> times, double scale, std::uint64_t fail_above)
      : times_(std::move(times)), scale_(scale), fail_above_(fail_above) {}
  void prepare(const bench::OpLayout& layout) override {
    if (layout.bytes > fail_above_) throw bench::BufferAllocationError("rank " + std::to_string(world_rank()) + ": out of memory (fake)");
    ops_ = 0;
  }
  double run_once() override { return scale_ * times_[std::min(ops_++, times_.size() - 1)]; }
  double run_batch(int ops) override {
    double total = 0;
    for (int i = 0; i < ops; ++i) total += run_once();
    return total;
  }
  std::int64_t check(bool /*corrupt*/) override { return 0; }

 private:
  std::vector<double> times_;
  double scale_;
  std::uint64_t fail_above_;
  std::size_t ops_ = 0;
};

int failures = 0;

void expect(bool ok, const std::string& what) {
  if (world_rank() == 0) std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok) ++failures;
}

bench::PointResult measure(ScriptedGroup& g, bench::Timing timing, const bench::TimingPolicy& p, std::uint64_t bytes = 1024) {
  bench::PointContext ctx;
  ctx.world = MPI_COMM_WORLD;
  ctx.group_comm = MPI_COMM_WORLD;
  ctx.group = &g;
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return bench::measure_concurrent(ctx, bench::op_layout(bench::Op::all_reduce, bytes, world_rank(), size), timing, p, false, false);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int rank = world_rank();
  bench::TimingPolicy p;  // 5 warm-ups, 20 ops per batch, 5 batches, 1 s

  // 1. A first op of 500 ms (rank 1 only, as when one rank connects late) changes nothing.
  {
    ScriptedGroup steady({100.0}, 1.0, ~0ULL);
    ScriptedGroup slow_first({rank == 1 ? 500e3 : 100.0, 100.0}, 1.0, ~0ULL);
    const auto a = measure(steady, bench::Timing::batched, p), b = measure(slow_first, bench::Timing::batched, p);
    expect(a.warmup == 5 && b.warmup == a.warmup, "batched warm-up count " + std::to_string(a.warmup) + " and " + std::to_string(b.warmup));
    expect(a.iters == 100 && b.iters == a.iters,
           "batched ops " + std::to_string(a.iters) + " and " + std::to_string(b.iters) + " (20 per batch)");
    expect(b.summary.median == 100.0, "batched median " + std::to_string(b.summary.median) + " us");
    const auto c = measure(steady, bench::Timing::per_iteration, p), d = measure(slow_first, bench::Timing::per_iteration, p);
    expect(c.warmup == d.warmup && c.iters == d.iters && d.summary.max == 100.0, "per-iteration warm-up " + std::to_string(d.warmup) +
                                                                                     ", iterations " + std::to_string(d.iters) +
                                                                                     ", slowest " + std::to_string(d.summary.max));
  }

  // 2. Rank 1 cannot allocate 1 MiB: both ranks skip the point with rank 1's message; 1 KiB still runs.
  {
    ScriptedGroup g({100.0}, 1.0, rank == 1 ? 64 * 1024 : ~0ULL);
    std::string message;
    try {
      measure(g, bench::Timing::batched, p, 1 << 20);
    } catch (const bench::PointNotMeasured& e) {
      message = e.what();
    }
    int skipped = message.find("rank 1: out of memory") != std::string::npos ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &skipped, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    expect(skipped == 1, "every rank skipped the point with rank 1's message ('" + message + "')");
    const auto r = measure(g, bench::Timing::batched, p, 1024);
    expect(r.iters == 100, "the next point ran (" + std::to_string(r.iters) + " ops)");
  }

  // 3. Rank 0's ops take 10 ms, rank 1's 30 ms: max keeps the slowest rank's 30 ms, avg the mean
  // 20 ms; batches are sized from the slowest rank either way (200 ms per batch: 6 ops, not 10).
  {
    ScriptedGroup g({10e3}, 2 * rank + 1.0, ~0ULL);
    const auto slowest = measure(g, bench::Timing::per_iteration, p);
    p.rank_time = bench::RankTime::avg;
    const auto mean = measure(g, bench::Timing::per_iteration, p);
    const auto mean_batched = measure(g, bench::Timing::batched, p);
    expect(slowest.summary.median == 30e3 && mean.summary.median == 20e3 && mean_batched.summary.median == 20e3,
           "rank time max " + std::to_string(slowest.summary.median) + " us, avg " + std::to_string(mean.summary.median) +
               " us, batched avg " + std::to_string(mean_batched.summary.median) + " us");
    expect(mean_batched.iters == 5 * 6,
           "avg batches sized from the slowest rank: " + std::to_string(mean_batched.iters / 5) + " ops per batch");
  }

  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
