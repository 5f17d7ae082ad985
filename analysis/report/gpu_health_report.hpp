#pragma once
// What a results file says about its GPUs: the points measured while a GPU throttled, each
// host's GPU health beside how often it sat in the slowest group, and each slot's host<->GPU
// copy bandwidth (run --host-copies).
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/report/report_spread.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

// A kept visit of a point during which some rank's GPU throttled.
struct ThrottledPoint {
  results::PointVisit visit;  // with the file's layout
  std::string host;
  int rank = 0;
  std::string bus_id;
  std::string reasons;  // "hw_slowdown,sw_thermal"
  int throttled_readings = 0, readings = 0;
};

// One host over the run: its GPUs' worst figures and counters, beside its slow-group tally.
struct HostGpuHealth {
  std::string host;
  int gpus = 0;
  int throttled_points = 0;                                               // kept visits with any throttling GPU on the host
  std::string reasons;                                                    // every reason seen
  double temperature_max_c = 0, sm_clock_min_mhz = 0;                     // NaN when never read
  std::int64_t ecc_corrected = 0, ecc_uncorrected = 0, pcie_replays = 0;  // grown over the run
  int slowest_only = 0, points = 0;  // HostTally's: in the slowest group (not the fastest) at this many of points
};

struct GpuHealthSection {
  bool sampled = false;  // the file has a /gpu_health table
  int rounds = 1;        // the run's rounds: a visit is named by its round when there are several
  std::vector<ThrottledPoint> throttled;
  std::vector<HostGpuHealth> hosts;
  std::vector<results::HostCopyRow> host_copies;
};

// A visit the machine-state probe measured again (kept = false in /state_probes) is not what the
// point's row reports, so its throttling is left out.
GpuHealthSection gpu_health_section(const results::ResultsFile& file, const std::vector<HostTally>& slow_hosts);

}  // namespace meshbench::analysis
