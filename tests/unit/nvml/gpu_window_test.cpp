#include <gtest/gtest.h>

#include "common/nvml/gpu_window.hpp"
#include "common/nvml/nvml_library.hpp"

namespace meshbench::nvml {
namespace {

GpuReading at(double from, double to, std::uint64_t reasons, std::uint64_t replays, double temperature) {
  GpuReading r;
  r.from_s = from;
  r.to_s = to;
  r.index = 0;
  r.reasons = reasons;
  r.pcie_replays = replays;
  r.ecc_uncorrected = 0;
  r.temperature_c = temperature;
  r.sm_clock_mhz = 1000 + temperature;
  return r;
}

TEST(GpuWindow, OnlyReadingsWhollyInsideTheWindowCount) {
  const std::vector<GpuReading> readings = {
      at(0.9, 1.1, kReasonHwSlowdown, 0, 90),  // straddles the start: neither this point's nor the last one's
      at(1.2, 1.3, 0, 0, 60), at(1.5, 1.6, kReasonSwThermal, 0, 70), at(1.9, 2.1, kReasonHwPowerBrake, 0, 95),  // straddles the end
  };
  const auto w = summarize_window(readings, 1.0, 2.0, nullptr);
  EXPECT_EQ(w.readings, 2);
  EXPECT_EQ(w.throttle, kReasonSwThermal);
  EXPECT_EQ(w.throttled_readings, 1);
  EXPECT_DOUBLE_EQ(*w.temperature_max_c, 70);
  EXPECT_DOUBLE_EQ(*w.sm_clock_min_mhz, 1060);
  EXPECT_DOUBLE_EQ(*w.sm_clock_max_mhz, 1070);
}

TEST(GpuWindow, IdleAndApplicationClocksAreNotThrottling) {
  const auto w = summarize_window({at(1.1, 1.2, kReasonGpuIdle | kReasonApplicationsClocks, 0, 50)}, 1.0, 2.0, nullptr);
  EXPECT_EQ(w.throttle, 0u);
  EXPECT_EQ(throttle_names(w.throttle), "");
  EXPECT_EQ(throttle_names(kReasonHwSlowdown | kReasonSwPowerCap | kReasonGpuIdle), "sw_power_cap,hw_slowdown");
}

TEST(GpuWindow, CountersGrowFromThePreviousWindowsLastReading) {
  const GpuReading before = at(0.5, 0.6, 0, 10, 50);
  const std::vector<GpuReading> readings = {at(1.1, 1.2, 0, 12, 50), at(1.8, 1.9, 0, 17, 50)};
  EXPECT_EQ(*summarize_window(readings, 1.0, 2.0, &before).pcie_replays, 7u);
  EXPECT_EQ(*summarize_window(readings, 1.0, 2.0, nullptr).pcie_replays, 5u);
  EXPECT_EQ(*summarize_window(readings, 1.0, 2.0, &before).ecc_uncorrected, 0u);
  // A driver reload resets the counter: what it counts since is the growth.
  const GpuReading later = at(0.5, 0.6, 0, 40, 50);
  EXPECT_EQ(*summarize_window(readings, 1.0, 2.0, &later).pcie_replays, 17u);
}

TEST(GpuWindow, AWindowWithoutReadingsSaysNothing) {
  const auto w = summarize_window({at(3, 4, kReasonHwSlowdown, 1, 99)}, 1.0, 2.0, nullptr);
  EXPECT_EQ(w.readings, 0);
  EXPECT_FALSE(w.temperature_max_c);
  EXPECT_FALSE(w.pcie_replays);
  EXPECT_EQ(w.throttle, 0u);
}

TEST(BusId, SpellingsOfOneAddressCompareEqual) {
  EXPECT_EQ(normal_bus_id("00000000:19:00.0"), "0000:19:00.0");
  EXPECT_EQ(normal_bus_id("0000:A9:00.0"), "0000:a9:00.0");
  EXPECT_EQ(normal_bus_id("0001:05:00.0"), "0001:05:00.0");
  EXPECT_EQ(normal_bus_id("weird"), "weird");
}

}  // namespace
}  // namespace meshbench::nvml
