// What one reading of a host's NIC counters costs (bench/sensors/nic_counters.hpp): run reads
// them twice per visit of a point on every host's first rank, outside the timed part, and this
// is the time that adds to a visit. Reads --root (default /, this host) and a canned EFA tree,
// --reads times each, and prints the median and the slowest reading.
//
//   build/perf/perf_nic_counters [--root DIR] [--reads N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/sensors/nic_counters.hpp"

namespace {

using Clock = std::chrono::steady_clock;

void time_reads(const std::string& root, int reads) {
  std::vector<double> us;
  std::size_t nics = 0;
  for (int i = 0; i < reads; ++i) {
    const auto t0 = Clock::now();
    const auto before = meshbench::bench::read_nic_counters(root);
    nics = meshbench::bench::counter_growth(before, before).size();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  std::printf("%-60s %zu NIC(s): median %.0f us, slowest %.0f us per reading (%d readings)\n", root.c_str(), nics, us[us.size() / 2],
              us.back(), reads);
}

}  // namespace

int main(int argc, char** argv) {
  std::string root = "/";
  int reads = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--root") root = argv[i + 1];
    if (a == "--reads") reads = std::max(1, std::atoi(argv[i + 1]));
  }
  time_reads(root, reads);
  time_reads(std::string(MESHBENCH_TEST_DATA) + "/nic-counters/efa/t0", reads);
  return 0;
}
