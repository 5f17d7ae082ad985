#pragma once
// Where run's mappings come from: a plan file, or the planner in-process.
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bench/run_config.hpp"
#include "mapping/calibration.hpp"
#include "mapping/mapping.hpp"
#include "topology/cluster.hpp"

namespace meshbench::bench {

// One layout of a plan file of several (mapping/plan_set.hpp).
struct RunLayout {
  std::string name;  // "ep4"; mapping names start "<name>/"
  mapping::Layout layout;
  std::string workload_json;  // empty without a workload
  std::string estimate_json;  // the explorer's estimate, kept for the results file; empty when none
};

struct RunMappings {
  mapping::Layout layout;              // with several layouts, the first
  std::vector<RunLayout> layouts;      // a plan file of several layouts; empty for one
  std::vector<std::string> layout_of;  // with several layouts: per mapping, its layout's name
  std::vector<mapping::Mapping> mappings;
  std::vector<std::vector<std::pair<std::string, double>>> predicted_us;  // per mapping: dim -> µs, "step"
  std::string workload_json;
  std::map<mapping::Dim, std::vector<std::uint64_t>> workload_sizes;
  std::string plan_json;                            // the whole plan (mapping/plan.hpp), kept in the results file
  std::optional<mapping::Calibration> calibration;  // the fitted model the plan was made with
};

// The plan file's mappings, or the planner's ranked candidates: with `calibration` (run
// --calibrate) or a --cost-model file, under that model; without a workload, charged for the
// sizes the run measures, so that prediction and measurement rank by the same sizes.
RunMappings choose_run_mappings(const RunConfig& config, const topology::ClusterTopology& topology,
                                const std::optional<mapping::Calibration>& calibration = std::nullopt);

}  // namespace meshbench::bench

namespace meshbench::bench {
// The plan travels from rank 0 to every rank as JSON text (only rank 0 may see the plan file).
std::string to_wire(const RunMappings& run);
RunMappings from_wire(const std::string& text);
// Keeps the mappings named in `names` (InputError naming an unknown one and the known ones),
// else the first `top` (0: all) of each layout. With `baseline`, a top-K selection also keeps the layout's own
// order (Megatron's) when it is not among the K; each kept mapping's `how` then says whether the
// prediction chose it or it is the baseline.
void select_mappings(RunMappings& run, const std::vector<std::string>& names, int top, bool baseline = false);
}  // namespace meshbench::bench
