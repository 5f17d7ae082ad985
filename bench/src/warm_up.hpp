#pragma once
// Warm-up and batch sizing, shared by every backend's driver (measure.cpp). Free of MPI and of
// any backend so that its rules are unit-tested with a fake op.
#include <functional>

#include "bench/timing.hpp"

namespace meshbench::bench {

struct WarmUp {
  int ops = 0;       // warm-up ops run, the first included
  double op_us = 0;  // one op's time for sizing: the median of the warm-up ops after the first
};

// Runs the warm-up of one point. `run_op` runs one synchronised op and returns this rank's µs;
// `slowest` turns it into the slowest rank's (a collective in the driver), so that every
// stopping decision below is the same on every rank.
//
// The first op is never used for sizing and does not count against the warm-up's time: it pays
// for what a backend sets up on first use (NCCL's lazy connections and CUDA's lazy kernel
// loading, a TCP transport's connections), and can be hundreds of times slower than the rest.
// Then at least max(warmup, 2) ops run in all, and more (up to kWarmUpExtraOps) while the last
// two ops still differ by more than kStableRatio, within a fifth of the point's budget counted
// from the second op.
WarmUp warm_up(const TimingPolicy& policy, const std::function<double()>& run_op, const std::function<double(double)>& slowest);

// Ops per batch so that the batches keep to the point's budget, from warm_up's op time.
int ops_per_batch(const TimingPolicy& policy, double op_us);

inline constexpr int kWarmUpExtraOps = 16;
inline constexpr double kStableRatio = 1.5;

}  // namespace meshbench::bench
