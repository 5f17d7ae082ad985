#pragma once
// A scratch folder of this test process: ctest runs unit tests side by side, each case in a
// process of its own, and other build trees' tests run beside them; a fixed name under the
// temporary folder would be one file for two cases that write and remove it at the same time.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

namespace meshbench::test_support {

inline std::filesystem::path temp_dir(const std::string& tag) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / (tag + "-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace meshbench::test_support
