#pragma once
// Where run's mappings come from: a plan file, or the planner in-process; and how rank 0 hands
// them to every rank.
#include <optional>
#include <string>
#include <vector>

#include "bench/run/run_config.hpp"
#include "bench/run_mappings.hpp"
#include "mapping/calibration.hpp"
#include "topology/cluster.hpp"

namespace meshbench::bench {

// The plan file's mappings, or the planner's ranked candidates: with `calibration` (run
// --calibrate) or a --cost-model file, under that model; without a workload, charged for the
// sizes the run measures, so that prediction and measurement rank by the same sizes.
RunMappings choose_run_mappings(const RunConfig& config, const topology::ClusterTopology& topology,
                                const std::optional<mapping::Calibration>& calibration = std::nullopt);

// The plan travels from rank 0 to every rank as JSON text (only rank 0 may see the plan file).
std::string to_wire(const RunMappings& run);
RunMappings from_wire(const std::string& text);
// Keeps the mappings named in `names` (InputError naming an unknown one and the known ones),
// else the first `top` (0: all) of each layout. With `baseline`, a top-K selection also keeps the layout's own
// order (Megatron's) when it is not among the K; each kept mapping's `how` then says whether the
// prediction chose it or it is the baseline.
void select_mappings(RunMappings& run, const std::vector<std::string>& names, int top, bool baseline = false);

}  // namespace meshbench::bench
