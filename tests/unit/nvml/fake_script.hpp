#pragma once
// Writes a script for the stand-in NVML library (tests/gpu/stand_ins/fake_nvml.c) and points
// the library at it for the test's length.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace meshbench::nvml::testing {

class FakeNvmlScript {
 public:
  explicit FakeNvmlScript(const std::string& text)
      : path_((std::filesystem::temp_directory_path() / ("fake-nvml-" + std::to_string(::getpid()) + ".txt")).string()) {
    std::ofstream(path_) << text;
    ::setenv("MESHBENCH_FAKE_NVML", path_.c_str(), 1);
  }
  ~FakeNvmlScript() {
    ::unsetenv("MESHBENCH_FAKE_NVML");
    std::filesystem::remove(path_);
  }
  FakeNvmlScript(const FakeNvmlScript&) = delete;
  FakeNvmlScript& operator=(const FakeNvmlScript&) = delete;

 private:
  std::string path_;
};

}  // namespace meshbench::nvml::testing
