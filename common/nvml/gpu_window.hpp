#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "common/nvml/gpu_reading.hpp"

namespace meshbench::nvml {

// One GPU over one measured point: what its readings inside the point's window say.
struct GpuWindow {
  int readings = 0;
  std::optional<double> temperature_max_c, power_max_w, sm_clock_min_mhz, sm_clock_max_mhz, utilization_mean;
  std::uint64_t throttle = 0;  // the throttling reasons (kThrottlingReasons) seen in any reading
  int throttled_readings = 0;
  // Counter growth since `before` (the reading that closed the GPU's previous window), so an
  // error between two points is charged to the next one rather than lost.
  std::optional<std::uint64_t> ecc_corrected, ecc_uncorrected, pcie_replays;
};

// The readings of one GPU that lie wholly inside [start_s, end_s]; counter deltas from `before`
// (nullptr: from the first reading inside) to the last reading inside. A counter that went down
// (driver reloaded) counts from zero.
GpuWindow summarize_window(const std::vector<GpuReading>& readings, double start_s, double end_s, const GpuReading* before);

}  // namespace meshbench::nvml
