#include <gtest/gtest.h>

#include "analysis/doctor/doctor_checks.hpp"
#include "analysis/doctor/doctor_gpu.hpp"
#include "doctor_test_facts.hpp"

namespace meshbench::analysis {
namespace {

using testing::dev_box;
using testing::p5_node;

TEST(DoctorGpu, ParsesNvidiaSmiCsvWithMissingFields) {
  const auto gpus = parse_nvidia_smi_csv(
      "0, NVIDIA H100 80GB HBM3, 00000000:53:00.0, 41, 118.52, 700.00, 0, 1980, 1980\n"
      "1, NVIDIA A10G, 00000000:00:1E.0, 35, 25.01, 300.00, [N/A], 210, 1710\n"
      "garbage line\n");
  ASSERT_EQ(gpus.size(), 2U);
  EXPECT_EQ(gpus[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(gpus[0].bus_id, "00000000:53:00.0");
  EXPECT_DOUBLE_EQ(*gpus[0].temperature_c, 41.0);
  EXPECT_DOUBLE_EQ(*gpus[0].power_w, 118.52);
  EXPECT_EQ(*gpus[0].ecc_uncorrected, 0);
  EXPECT_FALSE(gpus[1].ecc_uncorrected.has_value());
  EXPECT_DOUBLE_EQ(*gpus[1].max_sm_clock_mhz, 1710.0);
}

TEST(DoctorGpu, HealthyNodesPass) {
  const auto c = check_gpu_health({p5_node("a", 0), p5_node("b", 8)});
  EXPECT_EQ(c.status, CheckStatus::pass) << c.reason;
  EXPECT_EQ(c.reason, "16 GPUs on 2 nodes: no uncorrected ECC error, hottest 47 C");
}

TEST(DoctorGpu, EccErrorsHeatAndMissingGpus) {
  auto ecc = p5_node("b", 8);
  ecc.gpu.gpus[3].ecc_uncorrected = 2;
  auto c = check_gpu_health({p5_node("a", 0), ecc});
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.reason.find("b gpu3 has 2 uncorrected ECC errors"), std::string::npos) << c.reason;

  auto hot = p5_node("b", 8);
  hot.gpu.gpus[1].temperature_c = 88;
  c = check_gpu_health({hot});
  EXPECT_EQ(c.status, CheckStatus::warn);
  EXPECT_NE(c.reason.find("b gpu1 at 88 C"), std::string::npos) << c.reason;
  hot.gpu.gpus[1].temperature_c = 97;
  EXPECT_EQ(check_gpu_health({hot}).status, CheckStatus::fail);

  auto lost = p5_node("c", 16);
  lost.gpu.gpus.pop_back();
  c = check_gpu_health({lost});
  EXPECT_EQ(c.status, CheckStatus::fail);
  EXPECT_NE(c.reason.find("nvml sees 7 of 8 GPUs"), std::string::npos) << c.reason;
}

TEST(DoctorGpu, NoNvmlSkipsOnDevBoxWarnsOnGpuNode) {
  EXPECT_EQ(check_gpu_health({dev_box("d", 0)}).status, CheckStatus::skip);
  auto blind = p5_node("a", 0);
  blind.gpu = {"", "libnvidia-ml.so.1 not found", {}};
  EXPECT_EQ(check_gpu_health({blind}).status, CheckStatus::warn);
}

}  // namespace
}  // namespace meshbench::analysis
