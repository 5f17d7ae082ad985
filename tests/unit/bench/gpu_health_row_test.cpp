#include <gtest/gtest.h>

#include <cmath>

#include "bench/sensors/gpu_health_sampler.hpp"

namespace meshbench::bench {
namespace {

TEST(GpuHealthRow, AWindowBecomesARowWithGapsMarked) {
  const results::PointKey key{"", "m", "ep", "all_to_all", "batched", "concurrent", 1 << 20};
  nvml::GpuWindow w;
  w.readings = 4;
  w.temperature_max_c = 77;
  w.sm_clock_min_mhz = 1200;
  w.sm_clock_max_mhz = 1980;
  w.throttle = nvml::kReasonSwPowerCap | nvml::kReasonHwThermal;
  w.throttled_readings = 2;
  w.pcie_replays = 9;
  w.ecc_corrected = 0;
  const auto row = gpu_health_row({key, 2, 3}, w, "node-b", 5, 1, "0000:53:00.0");
  EXPECT_EQ(row.point.mapping, "m");
  EXPECT_EQ(row.point.bytes, 1u << 20);
  EXPECT_EQ(row.round, 2);
  EXPECT_EQ(row.attempt, 3);
  EXPECT_EQ(row.host, "node-b");
  EXPECT_EQ(row.rank, 5);
  EXPECT_EQ(row.gpu, 1);
  EXPECT_EQ(row.throttle, "sw_power_cap,hw_thermal");
  EXPECT_EQ(row.throttle_mask, 0x44u);
  EXPECT_EQ(row.throttled_readings, 2);
  EXPECT_DOUBLE_EQ(row.temperature_max_c, 77);
  EXPECT_TRUE(std::isnan(row.power_max_w));  // NVML gave none
  EXPECT_EQ(row.pcie_replays, 9);
  EXPECT_EQ(row.ecc_corrected, 0);
  EXPECT_EQ(row.ecc_uncorrected, -1);
}

}  // namespace
}  // namespace meshbench::bench
