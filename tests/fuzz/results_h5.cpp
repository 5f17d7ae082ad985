// A results file (report, compare), damaged: libFuzzer mutates a small valid file written by
// meshbench's writer (corpus/results_h5/), and the reader must refuse what it cannot read.
#include "results/reader.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void results_h5(std::string_view input) {
  const auto file = results::ResultsFile::open(input_file(input, "run.h5"));
  for (const auto& n : file.nodes()) (void)file.host_of_slot(n.first_slot);
  for (const auto& m : file.mappings()) (void)file.find_mapping(m.name);
}

}  // namespace meshbench::fuzz
