// import osu LOG --ranks 4: the OSU micro-benchmarks' output, then the results it would store.
#include <sstream>

#include "analysis/import/import_results.hpp"
#include "analysis/import/osu_log.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void osu_log(std::string_view input) {
  std::istringstream in{std::string(input)};
  analysis::ImportOptions options;
  options.ranks = 4;
  const auto log = analysis::parse_osu_log(in, "fuzz.log", options);
  (void)analysis::imported_results({log}, "meshbench import osu fuzz.log", "");
}

}  // namespace meshbench::fuzz
