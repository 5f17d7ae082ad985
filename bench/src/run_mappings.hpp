#pragma once
// Where run's mappings come from: a plan file, or the planner in-process.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench/run_config.hpp"
#include "mapping/mapping.hpp"
#include "topology/cluster.hpp"

namespace meshbench::bench {

struct RunMappings {
  mapping::Layout layout;
  std::vector<mapping::Mapping> mappings;
  std::vector<std::vector<std::pair<std::string, double>>> predicted_us;  // per mapping: dim -> µs, "step"
  std::string workload_json;
  std::map<mapping::Dim, std::vector<std::uint64_t>> workload_sizes;
  std::string plan_json;  // the whole plan (mapping/plan.hpp), kept in the results file
};

RunMappings choose_run_mappings(const RunConfig& config, const topology::ClusterTopology& topology);

}  // namespace meshbench::bench

namespace meshbench::bench {
// The plan travels from rank 0 to every rank as JSON text (only rank 0 may see the plan file).
std::string to_wire(const RunMappings& run);
RunMappings from_wire(const std::string& text);
// Keeps the mappings named in `names` (InputError naming an unknown one and the known ones),
// else the first `top` (0: all).
void select_mappings(RunMappings& run, const std::vector<std::string>& names, int top);
}  // namespace meshbench::bench
