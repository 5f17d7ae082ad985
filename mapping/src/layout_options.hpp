#pragma once
#include "common/cli.hpp"
#include "mapping/layout.hpp"

namespace meshbench::mapping::detail {

// --tp --cp --pp --ep --etp --order, shared by `groups` and `plan` (the world size comes from
// --world or from the topology).
void add_layout_options(po::options_description& options, Layout& layout);

}  // namespace meshbench::mapping::detail
