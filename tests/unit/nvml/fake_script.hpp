#pragma once
// Writes a script for the stand-in NVML library (tests/gpu/stand_ins/fake_nvml.c) and points
// the library at it for the test's length.
#include <stdlib.h>

#include <fstream>
#include <string>

#include "tests/unit/scratch_dir.hpp"

namespace meshbench::nvml::testing {

class FakeNvmlScript {
 public:
  explicit FakeNvmlScript(const std::string& text) : path_((dir_ / "script.txt").string()) {
    std::ofstream(path_) << text;
    ::setenv("MESHBENCH_FAKE_NVML", path_.c_str(), 1);
  }
  ~FakeNvmlScript() { ::unsetenv("MESHBENCH_FAKE_NVML"); }
  FakeNvmlScript(const FakeNvmlScript&) = delete;
  FakeNvmlScript& operator=(const FakeNvmlScript&) = delete;

 private:
  test_support::ScratchDir dir_{"fake-nvml"};
  std::string path_;
};

}  // namespace meshbench::nvml::testing
