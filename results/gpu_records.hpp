#pragma once
// The results file's rows about the GPUs themselves, beside the measurements: their health
// while each point was measured (run's NVML sampler) and the host<->GPU copy bandwidth of each
// slot (run --host-copies).
#include <cstdint>
#include <string>

#include "results/point_key.hpp"

namespace meshbench::results {

// One GPU over one measured attempt of a point (one row per rank with a GPU). A figure NVML
// could not give is NaN, a counter it could not give -1.
struct GpuHealthRow {
  PointKey point;  // the layout left empty (point_key.hpp)
  int round = 0, attempt = 1;
  std::string host;
  int rank = 0;  // world rank, whose slot's GPU this is
  int gpu = -1;  // NVML's index on the host
  std::string bus_id;
  int readings = 0;  // NVML readings inside the point's window (at least its first and last)
  double temperature_max_c = 0, power_max_w = 0, sm_clock_min_mhz = 0, sm_clock_max_mhz = 0, utilization_mean = 0;
  std::string throttle;  // the throttling reasons seen, "hw_slowdown,sw_thermal"; empty: none
  std::uint64_t throttle_mask = 0;
  int throttled_readings = 0;
  // Growth since the GPU's previous point: an error between two points lands on the next one.
  std::int64_t ecc_corrected = -1, ecc_uncorrected = -1, pcie_replays = -1;
};

// One slot's pinned-memory copy bandwidth in one direction, from one NUMA node, at one size.
struct HostCopyRow {
  std::string host;
  int rank = 0;
  std::string bus_id;     // the slot's GPU
  int numa_node = -1;     // where the host buffer's pages were bound
  std::string locality;   // local (the GPU's own NUMA node) | remote
  std::string direction;  // h2d | d2h
  std::uint64_t bytes = 0;
  int iters = 0;
  double gbps_median = 0, gbps_max = 0;  // 1e9 B/s
};

}  // namespace meshbench::results
