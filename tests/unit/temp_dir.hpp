#pragma once
// A scratch folder of this test process: ctest runs unit tests side by side, each case in a
// process of its own, and other build trees' tests run beside them; a fixed name under the
// temporary folder would be one file for two cases that write and remove it at the same time.
// The folders go when the process ends: one per case and run would otherwise pile up there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace meshbench::test_support {

inline std::filesystem::path temp_dir(const std::string& tag) {
  struct RemovedAtExit {
    std::vector<std::filesystem::path> dirs;
    pid_t owner = ::getpid();  // a forked child that exits must not take its parent's files
    RemovedAtExit() = default;
    RemovedAtExit(const RemovedAtExit&) = delete;
    RemovedAtExit& operator=(const RemovedAtExit&) = delete;
    ~RemovedAtExit() {
      if (::getpid() != owner) return;
      std::error_code ignored;  // a folder already gone, or not removable, must not fail the test
      for (const auto& d : dirs) std::filesystem::remove_all(d, ignored);
    }
  };
  static RemovedAtExit created;
  const auto dir = std::filesystem::path(::testing::TempDir()) / (tag + "-" + std::to_string(::getpid()));
  if (std::filesystem::create_directories(dir)) created.dirs.push_back(dir);
  return dir;
}

}  // namespace meshbench::test_support
