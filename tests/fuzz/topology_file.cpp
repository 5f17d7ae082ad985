#include "tests/fuzz/topology_file.hpp"

#include "tests/fuzz/entries.hpp"
#include "topology/json.hpp"
#include "topology/options.hpp"

namespace meshbench::fuzz {

void load_topology_input(std::string_view input, const std::string& file_name) {
  topology::TopologyOptions options;
  options.file = input_file(input, file_name);
  options.nodes = 1;
  const topology::ClusterTopology cluster = topology::load_offline_topology(options, false);
  (void)topology::dump_readable(topology::to_json(cluster));
}

}  // namespace meshbench::fuzz
