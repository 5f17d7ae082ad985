// NCCL topology XML (NCCL_TOPO_DUMP_FILE, NCCL_TOPO_FILE): pugixml, then meshbench's reader.
#include "tests/fuzz/entries.hpp"
#include "tests/fuzz/topology_file.hpp"

namespace meshbench::fuzz {

void nccl_xml(std::string_view input) {
  // hwloc documents are the hwloc_xml target's; hwloc's loader would take most of this one's time.
  if (input.find("<topology") != std::string_view::npos) return;
  load_topology_input(input, "topo.xml");
}

}  // namespace meshbench::fuzz
