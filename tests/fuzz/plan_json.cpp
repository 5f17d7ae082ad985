// A plan file (run --plan FILE, docs/mapping.md "The plan file"), of one layout or several.
#include "mapping/plan_set.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void plan_json(std::string_view input) { (void)mapping::load_plan_set(input_file(input, "plan.json")); }

}  // namespace meshbench::fuzz
