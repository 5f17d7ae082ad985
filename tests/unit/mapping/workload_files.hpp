#pragma once
// Helpers of the workload tests: a file to read, and the message a bad one is refused with.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "common/error.hpp"
#include "mapping/workload.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace meshbench::mapping::testing {

inline std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = (test_support::temp_dir("mapping_workload_test") / name).string();
  std::ofstream(path) << text;
  return path;
}

// The InputError's message for a workload file, or "" when it loads.
inline std::string error_of(const std::string& path) {
  try {
    (void)load_workload(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace meshbench::mapping::testing
