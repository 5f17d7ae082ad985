// import nccl-tests LOG: nccl-tests' text output or its -J JSON, then the results it would store.
#include <sstream>

#include "analysis/import/import_results.hpp"
#include "analysis/import/nccl_tests_log.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void nccl_tests_log(std::string_view input) {
  std::istringstream in{std::string(input)};
  analysis::ImportOptions options;
  options.op = "all_reduce";  // so that logs naming no binary get past the op and into the table
  const auto log = analysis::parse_nccl_tests_log(in, "fuzz.log", options);
  (void)analysis::imported_results({log}, "meshbench import nccl-tests fuzz.log", "");
}

}  // namespace meshbench::fuzz
