#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace meshbench::nvml {

// NVML's clock event ("throttle") reason bits, as nvmlDeviceGetCurrentClocksEventReasons reports them.
inline constexpr std::uint64_t kReasonGpuIdle = 0x1;
inline constexpr std::uint64_t kReasonApplicationsClocks = 0x2;
inline constexpr std::uint64_t kReasonSwPowerCap = 0x4;
inline constexpr std::uint64_t kReasonHwSlowdown = 0x8;
inline constexpr std::uint64_t kReasonSyncBoost = 0x10;
inline constexpr std::uint64_t kReasonSwThermal = 0x20;
inline constexpr std::uint64_t kReasonHwThermal = 0x40;
inline constexpr std::uint64_t kReasonHwPowerBrake = 0x80;
inline constexpr std::uint64_t kReasonDisplayClocks = 0x100;

// The reasons that slow a busy GPU below the clock it was asked for. Idle and a set application
// clock are states, not throttling: an idle GPU between points reports "idle" all the time.
inline constexpr std::uint64_t kThrottlingReasons =
    kReasonSwPowerCap | kReasonHwSlowdown | kReasonSyncBoost | kReasonSwThermal | kReasonHwThermal | kReasonHwPowerBrake;

// "hw_slowdown,sw_thermal" for the throttling bits of `reasons`; empty when none is set.
std::string throttle_names(std::uint64_t reasons);

// One GPU at one moment. `from_s`..`to_s` bracket the NVML calls on the steady clock (seconds):
// a reading belongs to a point only when both lie inside the point's window. A field NVML
// could not give stays empty.
struct GpuReading {
  double from_s = 0, to_s = 0;
  int index = -1;  // NVML's index of the GPU
  std::string bus_id;
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  std::optional<double> sm_clock_mhz;
  std::optional<double> gpu_utilization;         // percent of the sample period a kernel ran
  std::uint64_t reasons = 0;                     // every event reason bit NVML reported
  std::optional<std::uint64_t> ecc_corrected;    // volatile: since the driver loaded
  std::optional<std::uint64_t> ecc_uncorrected;  // volatile
  std::optional<std::uint64_t> pcie_replays;     // since the driver loaded
};

// What does not change while a GPU runs: for the doctor's listing.
struct GpuFacts {
  std::string name;
  std::optional<double> power_limit_w;
  std::optional<double> max_sm_clock_mhz;
};

}  // namespace meshbench::nvml
