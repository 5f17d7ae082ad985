// Cost-model overrides (plan --cost-model FILE, docs/mapping.md "Cost model").
#include "mapping/cost_params.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void cost_model_json(std::string_view input) { (void)mapping::load_cost_params(input_file(input, "cost.json"), mapping::CostParams{}); }

}  // namespace meshbench::fuzz
