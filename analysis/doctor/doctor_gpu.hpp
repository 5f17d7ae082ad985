#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::analysis {

// One GPU's health as NVML (or nvidia-smi) reports it; a field the source cannot give is empty.
struct GpuHealth {
  int index = 0;
  std::string name;
  std::string bus_id;
  std::optional<double> temperature_c;
  std::optional<double> power_w;
  std::optional<double> power_limit_w;
  std::optional<long long> ecc_uncorrected;  // volatile (since driver load) uncorrected ECC errors
  std::optional<double> sm_clock_mhz;
  std::optional<double> max_sm_clock_mhz;
  std::string throttle;                   // throttling reasons at the reading, "sw_power_cap"; NVML only
  std::optional<long long> pcie_replays;  // PCIe replays since the driver loaded; NVML only
};

// `source` is "nvml" or "nvidia-smi"; empty when neither exists here, with `note` saying so.
struct GpuReading {
  std::string source;
  std::string note;
  std::vector<GpuHealth> gpus;
};

// NVML through dlopen (libnvidia-ml.so.1), else `nvidia-smi --query-gpu=... --format=csv`.
GpuReading read_gpu_health();

// The columns read_gpu_health asks nvidia-smi for, in order.
inline constexpr std::string_view kNvidiaSmiQuery =
    "index,name,pci.bus_id,temperature.gpu,power.draw,power.limit,ecc.errors.uncorrected.volatile.total,"
    "clocks.sm,clocks.max.sm";
// Parses `nvidia-smi --query-gpu=<kNvidiaSmiQuery> --format=csv,noheader,nounits` output;
// "[N/A]", "N/A" and "[Not Supported]" become empty fields.
std::vector<GpuHealth> parse_nvidia_smi_csv(std::string_view text);

// Thresholds of the health check: WARN from this temperature, FAIL from the next.
inline constexpr double kGpuWarnTemperatureC = 85.0;
inline constexpr double kGpuFailTemperatureC = 95.0;

}  // namespace meshbench::analysis
