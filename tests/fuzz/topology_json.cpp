// The topology's JSON form (docs/topology.md) as a results file keeps it, read back by report.
#include <nlohmann/json.hpp>

#include "tests/fuzz/entries.hpp"
#include "topology/json.hpp"

namespace meshbench::fuzz {

void topology_json(std::string_view input) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(input);
  } catch (const nlohmann::json::exception&) {
    return;  // not JSON at all: report refuses it before the topology reader sees it
  }
  (void)topology::cluster_from_json(j);
}

}  // namespace meshbench::fuzz
