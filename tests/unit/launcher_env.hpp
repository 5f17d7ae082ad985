#pragma once
// A test fixture that starts each case with no launcher variables (mpirun's, PMIx's, PMI's,
// Slurm's) and puts back what the process had: ctest may itself run under a launcher.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace meshbench::test_support {

class LauncherEnv : public ::testing::Test {
 protected:
  static constexpr const char* kNames[] = {"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",           "PMI_RANK", "PMI_SIZE",
                                           "SLURM_STEP_ID",        "SLURM_PROCID",         "SLURM_STEP_NUM_TASKS"};
  void SetUp() override {
    for (const char* n : kNames) {
      if (const char* v = std::getenv(n)) saved_.emplace_back(n, v);
      unsetenv(n);
    }
  }
  void TearDown() override {
    for (const char* n : kNames) unsetenv(n);
    for (const auto& [n, v] : saved_) setenv(n.c_str(), v.c_str(), 1);
  }
  std::vector<std::pair<std::string, std::string>> saved_;
};

}  // namespace meshbench::test_support
