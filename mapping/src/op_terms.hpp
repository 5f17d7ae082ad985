// The two terms every priced op is made of, shared by the α-β model (cost_model.cpp) and the
// fitted one (calibration_fit.cpp) so that both read the same physics: a time is
// latency_steps(op, n)·α + bytes·busbw_factor(op, n)·(µs per byte).
#pragma once
#include <cmath>

#include "common/ops/op.hpp"

namespace meshbench::mapping::detail {

// How many latency terms one op of a group of n ranks pays: a ring all-reduce 2(n−1) steps, the
// other ring ops and the all-to-alls n−1, point to point one.
inline double latency_steps(ops::Op op, int n) {
  switch (ops::info(op).family) {
    case ops::Family::ring_all_reduce: return 2.0 * (n - 1);
    case ops::Family::ring_gather:
    case ops::Family::all_to_all: return n - 1.0;
    case ops::Family::point_to_point: return 1.0;
  }
  return 1.0;
}

// GB/s -> microseconds per byte (0 for no bandwidth limit).
inline double us_per_byte(double gbps) { return gbps > 0 && std::isfinite(gbps) ? 1.0 / (gbps * 1e3) : 0.0; }

}  // namespace meshbench::mapping::detail
