#pragma once
#include <string>
#include <string_view>

namespace meshbench::fuzz {

// What `topo --topology FILE --format json` does with a file: load it, build the node, print
// its JSON form.
void load_topology_input(std::string_view input, const std::string& file_name);

}  // namespace meshbench::fuzz
