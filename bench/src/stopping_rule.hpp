#pragma once
// When per-iteration timing stops, and how many iterations it runs between two looks: free of
// MPI and of any clock, so that the rule is unit-tested on synthetic samples. The driver
// (measure.cpp) passes the ranks' reduced times and elapsed seconds, so every rank decides alike.
#include <span>

#include "bench/timing.hpp"

namespace meshbench::bench {

// Enough samples: max_iters of them, or at least min_iters once the point's budget is spent or
// the median's 95% interval is within the policy's precision (median_ci_relative_halfwidth).
bool enough_iterations(const TimingPolicy& policy, std::span<const double> samples, double elapsed_s);

// The next chunk after `done` iterations in `elapsed_s`: as many again as so far, fewer when the
// budget left holds fewer at the pace so far, at least 1 and never past max_iters.
int next_chunk(const TimingPolicy& policy, int done, double elapsed_s);

}  // namespace meshbench::bench
