// The real dlopen path of the NVML reader and the sampler, against the stand-in library.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "common/nvml/gpu_sampler.hpp"
#include "common/nvml/nvml_library.hpp"
#include "tests/unit/nvml/fake_script.hpp"

namespace meshbench::nvml {
namespace {

using testing::FakeNvmlScript;

TEST(NvmlLibrary, ReadsTheStandInThroughDlopen) {
  const FakeNvmlScript script("gpus 2\ntemperature 61\npower 345\nclock 1755\n");
  const NvmlLibrary nvml(MESHBENCH_FAKE_NVML);
  ASSERT_TRUE(nvml.available()) << nvml.note();
  EXPECT_EQ(nvml.device_count(), 2);
  EXPECT_EQ(nvml.index_of_bus_id("0000:02:00.0"), 1);
  EXPECT_EQ(nvml.index_of_bus_id("00000000:01:00.0"), 0);
  EXPECT_EQ(nvml.index_of_bus_id("0000:09:00.0"), -1);
  const auto r = nvml.read(1);
  EXPECT_EQ(r.bus_id, "0000:02:00.0");
  EXPECT_DOUBLE_EQ(*r.temperature_c, 61);
  EXPECT_DOUBLE_EQ(*r.power_w, 345);
  EXPECT_DOUBLE_EQ(*r.sm_clock_mhz, 1755);
  EXPECT_EQ(*r.pcie_replays, 0u);
  EXPECT_EQ(r.reasons, kReasonGpuIdle);
  EXPECT_LE(r.from_s, r.to_s);
}

TEST(NvmlLibrary, AbsentOrFailingLibraryIsNotAvailableWithAReason) {
  const NvmlLibrary missing("/nonexistent/libnvidia-ml.so.1");
  EXPECT_FALSE(missing.available());
  EXPECT_NE(missing.note().find("not found"), std::string::npos);
  EXPECT_EQ(missing.device_count(), 0);
  EXPECT_FALSE(missing.read(0).temperature_c);
  missing.publish_point(3);  // harmless without a library

  const FakeNvmlScript script("init_fails\n");
  const NvmlLibrary failing(MESHBENCH_FAKE_NVML);
  EXPECT_FALSE(failing.available());
  EXPECT_NE(failing.note().find("nvmlInit_v2 failed"), std::string::npos);
}

TEST(NvmlLibrary, TheEnvironmentVariableNamesTheLibrary) {
  const FakeNvmlScript script("gpus 3\n");
  ::setenv(kLibraryVariable, MESHBENCH_FAKE_NVML, 1);
  const NvmlLibrary nvml;
  ::unsetenv(kLibraryVariable);
  ASSERT_TRUE(nvml.available()) << nvml.note();
  EXPECT_EQ(nvml.device_count(), 3);
}

// The readings follow the published point, never the clock: whatever the sampling thread
// manages to read in between, only point 2 of GPU 1 throttles, and the replays land on point 1.
TEST(GpuSampler, AThrottleDuringOnePointIsOnThatPointOnly) {
  const FakeNvmlScript script("gpus 2\nthrottle 0x8 point 2 gpu 1\nreplays 5 point 1\necc_uncorrected 2 point 3 gpu 0\n");
  const NvmlLibrary nvml(MESHBENCH_FAKE_NVML);
  ASSERT_TRUE(nvml.available()) << nvml.note();
  GpuSampler sampler(nvml, {0, 1}, 0.001);
  std::vector<std::vector<GpuWindow>> windows;
  for (int point = 0; point < 5; ++point) {
    sampler.open_window(point);
    std::this_thread::sleep_for(std::chrono::milliseconds(3));  // room for the thread's readings; none is required
    windows.push_back(sampler.close_window());
  }
  for (int point = 0; point < 5; ++point) {
    for (int gpu = 0; gpu < 2; ++gpu) {
      const auto& w = windows[static_cast<std::size_t>(point)][static_cast<std::size_t>(gpu)];
      SCOPED_TRACE("point " + std::to_string(point) + " gpu " + std::to_string(gpu));
      EXPECT_GE(w.readings, 2);
      EXPECT_EQ(w.throttle, point == 2 && gpu == 1 ? kReasonHwSlowdown : 0u);
      EXPECT_EQ(*w.pcie_replays, point == 1 ? 5u : 0u);
      EXPECT_EQ(*w.ecc_uncorrected, point == 3 && gpu == 0 ? 2u : 0u);
      EXPECT_DOUBLE_EQ(*w.utilization_mean, 90);
    }
  }
}

TEST(GpuSampler, WithoutAThreadEachWindowHasItsTwoReadings) {
  const FakeNvmlScript script("gpus 1\n");
  const NvmlLibrary nvml(MESHBENCH_FAKE_NVML);
  GpuSampler sampler(nvml, {0}, 0);
  sampler.open_window(0);
  const auto w = sampler.close_window();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].readings, 2);
}

}  // namespace
}  // namespace meshbench::nvml
