#pragma once
// The one-line message of the InputError `f` throws, "" when it throws none: for tests that
// check what a refusal says.
#include <functional>
#include <string>

#include "common/error.hpp"

namespace meshbench::test_support {

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace meshbench::test_support
