#pragma once
// The row layouts of /gpu_health and /host_copies (docs/results-schema.md) and their
// conversions; beside tables.hpp, shared by the writer and the reader.
#include <cstdint>

#include "results/gpu_records.hpp"
#include "results/src/h5.hpp"
#include "results/src/tables.hpp"

namespace meshbench::results::tables {

inline constexpr const char* kGpuHealth = "gpu_health";
inline constexpr const char* kHostCopies = "host_copies";

struct GpuHealthH5 : PointH5 {
  std::int32_t round = 0, attempt = 0;
  const char* host = nullptr;
  std::int32_t rank = 0, gpu = 0;
  const char* bus_id = nullptr;
  std::int32_t readings = 0;
  double temperature_max_c = 0, power_max_w = 0, sm_clock_min_mhz = 0, sm_clock_max_mhz = 0, utilization_mean = 0;
  const char* throttle = nullptr;
  std::uint64_t throttle_mask = 0;
  std::int32_t throttled_readings = 0;
  std::int64_t ecc_corrected = 0, ecc_uncorrected = 0, pcie_replays = 0;
};

struct HostCopyH5 {
  const char* host = nullptr;
  std::int32_t rank = 0;
  const char* bus_id = nullptr;
  std::int32_t numa_node = 0;
  const char* locality = nullptr;
  const char* direction = nullptr;
  std::uint64_t bytes = 0;
  std::int32_t iters = 0;
  double gbps_median = 0, gbps_max = 0;
};

h5::Compound<GpuHealthH5> gpu_health_type();
h5::Compound<HostCopyH5> host_copy_type();
GpuHealthH5 to_h5(const GpuHealthRow& r);
GpuHealthRow from_h5(const GpuHealthH5& h);
HostCopyH5 to_h5(const HostCopyRow& r);
HostCopyRow from_h5(const HostCopyH5& h);

}  // namespace meshbench::results::tables
