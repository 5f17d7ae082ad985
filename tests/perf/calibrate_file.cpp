// How long `meshbench calibrate RUN.h5` takes on a results file of many points: writes a file of
// --points rows (two mappings of TP 2 on two nodes with one NIC each — pairs inside a node and
// across the NIC —, three ring ops and send/recv, concurrent and isolated, sizes from 8 B to
// 64 MiB, times from a known α-β line), then times reading it into calibration points and the
// whole fit, three times each. Target: 100,000 points in under 1 s (docs/mapping.md, "Scale").
//
//   build/perf/perf_calibrate_file [--points N] [--dir DIR]
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "analysis/calibrate/calibrate.hpp"
#include "tests/unit/analysis/report_fixture.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

int main(int argc, char** argv) {
  int points = 100000;
  std::filesystem::path dir = std::filesystem::temp_directory_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--points") points = std::atoi(argv[i + 1]);
    if (a == "--dir") dir = argv[i + 1];
  }
  using meshbench::analysis::testing::FixtureFile;
  FixtureFile f(meshbench::analysis::testing::nic_cluster(1.0));
  f.add_mapping("block", "tp-cp-ep-dp-pp");
  f.add_mapping("spread", "tp-cp-ep-dp-pp", {0, 2, 1, 3});
  const char* ops[] = {"all_reduce", "all_gather", "reduce_scatter", "send_recv"};
  // Distinct sizes, geometric from 8 B to 64 MiB, as many as the point count needs.
  const int per_size = 2 * 4 * 2;  // mappings x ops x concurrency
  const int sizes = (points + per_size - 1) / per_size;
  int made = 0;
  for (int s = 0; s < sizes && made < points; ++s) {
    const auto bytes = static_cast<std::uint64_t>(std::llround(8.0 * std::pow(8.0 * 1024 * 1024, s / std::max(1.0, sizes - 1.0))));
    for (const char* m : {"block", "spread"}) {
      const bool across = std::string(m) == "spread";
      for (const char* op : ops) {
        for (int isolated = 0; isolated < 2 && made < points; ++isolated, ++made) {
          // Within a node 2 µs + 10 GB/s, across 20 µs + 0.125 GB/s, two flows sharing the NIC.
          const double alpha = across ? 20.0 : 2.0, gbps = across ? 0.125 : 10.0;
          const double share = across && isolated == 0 ? 2.0 : 1.0;
          auto& p = f.add_point(m, "tp", op, bytes, alpha + static_cast<double>(bytes) / (gbps * 1e3) * share);
          if (isolated == 1) meshbench::analysis::testing::make_isolated(p);
        }
      }
    }
  }
  const auto path = (dir / ("perf-calibrate-" + std::to_string(::getpid()) + ".h5")).string();
  auto t = Clock::now();
  f.write(path);
  std::printf("wrote %d points in %.1f s: %s (%.1f MB)\n", made, seconds_since(t), path.c_str(),
              static_cast<double>(std::filesystem::file_size(path)) / 1e6);
  for (int run = 0; run < 3; ++run) {
    t = Clock::now();
    const auto read = meshbench::analysis::calibration_points({path});
    const double read_s = seconds_since(t);
    t = Clock::now();
    const auto c = meshbench::analysis::calibrate_from_results({{path}, {}, false});
    std::printf("run %d: %zu calibration points read in %.3f s; calibrate_from_results (read + fit) %.3f s, %zu fits\n", run, read.size(),
                read_s, seconds_since(t), c.links.size());
  }
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("peak RSS %.0f MiB\n", static_cast<double>(u.ru_maxrss) / 1024.0);
  std::filesystem::remove(path);
  return 0;
}
