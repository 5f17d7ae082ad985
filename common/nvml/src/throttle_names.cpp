#include <utility>

#include "common/nvml/gpu_reading.hpp"

namespace meshbench::nvml {

std::string throttle_names(std::uint64_t reasons) {
  static constexpr std::pair<std::uint64_t, const char*> kNames[] = {
      {kReasonSwPowerCap, "sw_power_cap"}, {kReasonHwSlowdown, "hw_slowdown"}, {kReasonSyncBoost, "sync_boost"},
      {kReasonSwThermal, "sw_thermal"},    {kReasonHwThermal, "hw_thermal"},   {kReasonHwPowerBrake, "hw_power_brake"}};
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((reasons & bit) == 0) continue;
    if (!out.empty()) out += ",";
    out += name;
  }
  return out;
}

}  // namespace meshbench::nvml
