#include "bench/mpi_wait.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace meshbench::bench {
namespace {

// mpi_wait_setting_error reads the variable each time (mpi_wait_sleep_us reads it once).
std::string error_for(const char* value) {
  if (value == nullptr) {
    ::unsetenv("MESHBENCH_MPI_WAIT_SLEEP_US");
  } else {
    ::setenv("MESHBENCH_MPI_WAIT_SLEEP_US", value, 1);
  }
  std::string error = mpi_wait_setting_error();
  ::unsetenv("MESHBENCH_MPI_WAIT_SLEEP_US");
  return error;
}

TEST(MpiWaitSetting, UnsetEmptyAndWholeMicrosecondsInRangeAreAccepted) {
  EXPECT_EQ(error_for(nullptr), "");
  EXPECT_EQ(error_for(""), "");
  EXPECT_EQ(error_for("0"), "");
  EXPECT_EQ(error_for("50"), "");
  EXPECT_EQ(error_for("100000"), "");
}

TEST(MpiWaitSetting, AnythingElseIsRefusedNamingTheValueAndTheWayOut) {
  for (const char* bad : {"fast", "-1", "100001", "50us", "1.5", " "}) {
    const std::string error = error_for(bad);
    EXPECT_NE(error.find("MESHBENCH_MPI_WAIT_SLEEP_US='" + std::string(bad) + "'"), std::string::npos) << error;
    EXPECT_NE(error.find("unset it"), std::string::npos) << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

}  // namespace
}  // namespace meshbench::bench
