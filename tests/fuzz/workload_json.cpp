// A workload file (--workload FILE, docs/mapping.md).
#include "mapping/workload.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void workload_json(std::string_view input) { (void)mapping::load_workload(input_file(input, "workload.json")); }

}  // namespace meshbench::fuzz
