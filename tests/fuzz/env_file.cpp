// An environment template (doctor --env-template FILE; slurm/env/*.env are such files).
#include "analysis/doctor/doctor_env.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void env_file(std::string_view input) { (void)analysis::load_env_template(input_file(input, "job.env")); }

}  // namespace meshbench::fuzz
