// Speed of the calibration fit (not a test; target: 100,000 points in under 1 s). Two sets of
// seeded synthetic points, each fitted 5 times, the best and the median time printed:
//   - "results file": 4 link classes × the 6 ops × group sizes 2, 4, 8 × 24 sizes 8 B–64 MiB ×
//     1, 2 or 4 concurrent flows, repeated, with a protocol switch at 64 KiB — what a large run
//     would hold;
//   - "distinct sizes": one link class and op, every point at its own size (the segment search's
//     worst case).
//
//   build/perf/perf_calibration_fit [--points N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mapping/calibration.hpp"
#include "tests/unit/mapping/synthetic_points.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using meshbench::mapping::CalibrationPoint;
using meshbench::mapping::testing::Truth;
using meshbench::topology::LinkClass;

std::vector<CalibrationPoint> results_file_points(std::size_t count) {
  std::vector<Truth> truths;
  for (auto link : {LinkClass::NET, LinkClass::NVL, LinkClass::PXB, LinkClass::SYS}) {
    for (auto op : meshbench::ops::kAllOps) {
      truths.push_back({.link = link,
                        .op = op,
                        .alpha_us = link == LinkClass::NET ? 12.0 : 2.0,
                        .gbps = link == LinkClass::NVL ? 300.0 : 12.0,
                        .switch_bytes = 64 * 1024,
                        .alpha2_us = link == LinkClass::NET ? 30.0 : 5.0,
                        .gbps2 = link == LinkClass::NVL ? 400.0 : 20.0,
                        .gamma = 0.8});
    }
  }
  const auto per_repeat = truths.size() * 3 * 24 * 3;
  auto points = meshbench::mapping::testing::synthetic_points(
      truths, {.flows = {1, 2, 4}, .repeats = static_cast<int>((count + per_repeat - 1) / per_repeat), .seed = 11});
  points.resize(count);
  return points;
}

std::vector<CalibrationPoint> distinct_size_points(std::size_t count) {
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> log_bytes(std::log(8.0), std::log(64.0 * 1024 * 1024));
  std::normal_distribution<double> noise(0, 0.03);
  const Truth t{.link = LinkClass::NET, .op = meshbench::ops::Op::all_reduce, .alpha_us = 12, .gbps = 12};
  std::vector<CalibrationPoint> points;
  for (std::size_t i = 0; i < count; ++i) {
    const auto bytes = static_cast<std::uint64_t>(std::exp(log_bytes(rng)));
    points.push_back({t.link, t.op, 4, 1, bytes, meshbench::mapping::testing::true_time_us(t, 4, bytes, 1) * std::exp(noise(rng))});
  }
  return points;
}

void measure(const char* name, const std::vector<CalibrationPoint>& points) {
  std::vector<double> seconds;
  std::size_t fits = 0, segments = 0;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    const auto c = meshbench::mapping::fit_calibration(points);
    seconds.push_back(std::chrono::duration<double>(Clock::now() - start).count());
    fits = c.links.size();
    segments = 0;
    for (const auto& f : c.links) segments += f.segments.size();
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("%-16s %7zu points: fit in %.3f s (best of 5), %.3f s (median); %zu link/op fits, %zu segments\n", name, points.size(),
              seconds.front(), seconds[2], fits, segments);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t count = 100'000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--points") == 0) count = std::strtoull(argv[i + 1], nullptr, 10);
  }
  measure("results file", results_file_points(count));
  measure("distinct sizes", distinct_size_points(count));
  return 0;
}
