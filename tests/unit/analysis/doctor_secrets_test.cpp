#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "analysis/doctor/doctor.hpp"
#include "analysis/doctor/doctor_run.hpp"
#include "results/environment.hpp"

namespace meshbench::analysis {
namespace {

constexpr const char* kSecret = "FAKEsecretAKIA0123456789abcdefXYZ";
constexpr const char* kHfToken = "hf_FAKEtokenNOTREAL000111222";
constexpr const char* kGhToken = "ghp_FAKEtokenNOTREAL999888777";
constexpr const char* kUnderPrefix = "FAKEnccltokenUnderAllowedPrefix";

// Sets fake credentials for one test and removes them afterwards.
class Secrets : public ::testing::Test {
 protected:
  void SetUp() override {
    setenv("AWS_SECRET_ACCESS_KEY", kSecret, 1);
    setenv("HF_TOKEN", kHfToken, 1);
    setenv("GITHUB_TOKEN", kGhToken, 1);
    setenv("NCCL_FAKE_AUTH_TOKEN", kUnderPrefix, 1);  // a credential under an allowed prefix
    setenv("NCCL_IB_PKEY", "0x8001", 1);              // a legitimate setting that only looks like one
  }
  void TearDown() override {
    for (const char* name : {"AWS_SECRET_ACCESS_KEY", "HF_TOKEN", "GITHUB_TOKEN", "NCCL_FAKE_AUTH_TOKEN", "NCCL_IB_PKEY"}) {
      unsetenv(name);
    }
  }
  static void expect_clean(const std::string& text) {
    for (const char* value : {kSecret, kHfToken, kGhToken, kUnderPrefix}) {
      EXPECT_EQ(text.find(value), std::string::npos) << "secret value leaked: " << value;
    }
  }
};

TEST(SecretFilter, DropsCredentials) {
  for (const char* name : {"AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID", "AWS_SESSION_TOKEN", "HF_TOKEN", "GITHUB_TOKEN", "SLURM_JWT",
                           "NCCL_API_KEY", "MESHBENCH_PASSWORD", "FI_AUTH", "OMPI_MCA_my_passwd", "UCX_PRIVATEKEY_FILE", "CUDA_cookie"}) {
    EXPECT_TRUE(results::looks_like_secret(name)) << name;
    EXPECT_FALSE(results::is_recorded_variable(name)) << name;
  }
}

TEST(SecretFilter, KeepsLegitimateNcclAndFabricSettings) {
  for (const char* name : {"NCCL_IB_PKEY", "NCCL_IB_HCA", "NCCL_SOCKET_IFNAME", "NCCL_NET_GDR_LEVEL", "FI_EFA_USE_DEVICE_RDMA",
                           "FI_PROVIDER", "OFI_NCCL_PROTOCOL", "OMPI_MCA_orte_precondition_transports", "SLURM_JOB_ID", "LD_PRELOAD",
                           "CUDA_VISIBLE_DEVICES", "NVSHMEM_BOOTSTRAP", "RDMAV_FORK_SAFE"}) {
    EXPECT_FALSE(results::looks_like_secret(name)) << name;
    EXPECT_TRUE(results::is_recorded_variable(name)) << name;
  }
  EXPECT_FALSE(results::is_recorded_variable("HOME"));  // not on the allow-list at all
}

TEST(SecretFilter, RecordedEnvironmentFromAList) {
  const auto env = results::recorded_environment(
      {"NCCL_IB_PKEY=0x8001", "NCCL_DEBUG_TOKEN=t", "AWS_SECRET_ACCESS_KEY=s", "FI_PROVIDER=efa", "PATH=/bin"});
  EXPECT_EQ(env, (results::Environment{{"FI_PROVIDER", "efa"}, {"NCCL_IB_PKEY", "0x8001"}}));
}

TEST_F(Secrets, RankFactsKeepSettingsAndNoCredential) {
  std::istringstream tmpl("HF_TOKEN=placeholder\nNCCL_PROTO=LL128\n");
  const auto t = parse_env_template(tmpl, "t.env");
  EXPECT_EQ(t.ignored_secret_names, std::vector<std::string>{"HF_TOKEN"});
  const auto facts = collect_rank_facts(0, "h", t);
  const std::string dumped = nlohmann::json(facts).dump();
  expect_clean(dumped);
  EXPECT_NE(dumped.find("\"NCCL_IB_PKEY\":\"0x8001\""), std::string::npos);
}

TEST_F(Secrets, NothingDoctorWritesContainsThem) {
  const auto report = run_doctor_local(DoctorOptions{});
  expect_clean(nlohmann::json(report).dump());
  std::ostringstream text;
  print_doctor_text(report, text, true);
  expect_clean(text.str());
}

}  // namespace
}  // namespace meshbench::analysis
