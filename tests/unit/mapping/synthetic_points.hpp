// Seeded synthetic calibration points with known answers, for the fit's tests and its benchmark
// (tests/perf/calibration_fit.cpp). The true times are written out here on their own, term by
// term, so that a test compares the fit with the physics rather than with itself.
#pragma once
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "mapping/calibration.hpp"

namespace meshbench::mapping::testing {

// One (link class, op) as the synthetic cluster behaves: below `switch_bytes` one line, from
// there on another (a protocol change); k concurrent flows share the bandwidth as k^gamma.
struct Truth {
  topology::LinkClass link = topology::LinkClass::NET;
  ops::Op op = ops::Op::all_reduce;
  double alpha_us = 10;
  double gbps = 12;
  std::uint64_t switch_bytes = 0;  // 0: one line over all sizes
  double alpha2_us = 0, gbps2 = 0;
  double gamma = 1;
};

inline double truth_steps(ops::Op op, int n) {
  switch (op) {
    case ops::Op::all_reduce: return 2.0 * (n - 1);
    case ops::Op::send_recv: return 1;
    default: return n - 1.0;
  }
}

inline double truth_factor(ops::Op op, int n) {
  switch (op) {
    case ops::Op::all_reduce: return 2.0 * (n - 1) / n;
    case ops::Op::send_recv: return 1;
    default: return (n - 1.0) / n;
  }
}

inline double true_time_us(const Truth& t, int n, std::uint64_t bytes, int flows) {
  const bool upper = t.switch_bytes > 0 && bytes >= t.switch_bytes;
  const double alpha = upper ? t.alpha2_us : t.alpha_us, gbps = upper ? t.gbps2 : t.gbps;
  return truth_steps(t.op, n) * alpha + static_cast<double>(bytes) * truth_factor(t.op, n) / (gbps * 1e3) * std::pow(flows, t.gamma);
}

// nccl-tests' sizes from 8 B to 64 MiB, doubling.
inline std::vector<std::uint64_t> doubling_sizes(std::uint64_t from = 8, std::uint64_t to = 64ULL << 20) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t b = from; b <= to; b *= 2) out.push_back(b);
  return out;
}

struct Sampling {
  std::vector<std::uint64_t> sizes = doubling_sizes();
  std::vector<int> group_sizes = {2, 4, 8};
  std::vector<int> flows = {1};
  int repeats = 3;
  double noise = 0.03;  // σ of the multiplicative log-normal noise
  std::uint32_t seed = 1;
};

// Every truth × size × group size × flows, `repeats` times, each time off by e^N(0, noise).
inline std::vector<CalibrationPoint> synthetic_points(const std::vector<Truth>& truths, const Sampling& s) {
  std::mt19937 rng(s.seed);
  std::normal_distribution<double> noise(0.0, s.noise);
  std::vector<CalibrationPoint> out;
  for (const auto& t : truths) {
    for (int n : s.group_sizes) {
      for (int k : s.flows) {
        for (auto bytes : s.sizes) {
          for (int r = 0; r < s.repeats; ++r) {
            out.push_back({t.link, t.op, n, k, bytes, true_time_us(t, n, bytes, k) * std::exp(noise(rng))});
          }
        }
      }
    }
  }
  return out;
}

}  // namespace meshbench::mapping::testing
