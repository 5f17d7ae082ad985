// The libFuzzer harness of one target: MESHBENCH_FUZZ_ENTRY names its entry function
// (tests/fuzz/CMakeLists.txt builds one executable per target). An exception that
// check_contract lets through is a finding: it is named, and the abort makes libFuzzer save the
// input as crash-<sha1>.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <typeinfo>

#include "tests/fuzz/entries.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    meshbench::fuzz::check_contract(meshbench::fuzz::MESHBENCH_FUZZ_ENTRY, std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "meshbench fuzz finding: %s escaped: %s\n", typeid(e).name(), e.what());
    std::abort();
  }
  return 0;
}
