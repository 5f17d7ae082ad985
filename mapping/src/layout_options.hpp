#pragma once
#include "common/cli.hpp"
#include "mapping/layout.hpp"
#include "mapping/workload_file.hpp"

namespace meshbench::mapping::detail {

// --tp --cp --pp --ep --etp --order, shared by `groups` and `plan` (the world size comes from
// --world or from the topology).
void add_layout_options(po::options_description& options, Layout& layout);

// The sizes a workload file fixes (a Megatron launch script), for each layout option the
// command line left at its default: what is typed wins over what the file says.
void apply_file_layout(const po::variables_map& vm, const FileLayout& file, Layout& layout);

}  // namespace meshbench::mapping::detail
