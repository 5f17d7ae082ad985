#pragma once
#include <string_view>
#include <vector>

namespace meshbench::slurm {

// The environment templates of slurm/env/, embedded at build time so that an installed
// meshbench writes them without the source tree.
struct EnvTemplate {
  std::string_view name;     // "efa", "local"
  std::string_view summary;  // one line for --help
  std::string_view text;     // the file, verbatim
};

const std::vector<EnvTemplate>& env_templates();

// The template called `name`; InputError listing the names when there is none.
const EnvTemplate& env_template(std::string_view name);

}  // namespace meshbench::slurm
