#pragma once
// explore --measured: the log read, its layout and job checked against what the user gave and
// the cluster, and explore's constants fitted to its step time.
#include <optional>

#include "explore_options.hpp"
#include "mapping/measured_fit.hpp"

namespace meshbench::mapping {

// The measured run of --measured LOG: the log's step time, the layout its arguments state (or
// --measured-layout; both must agree), the job's batch, sequence and precision from the log,
// else `settings`. InputError (one line) for a log that is not Megatron's, has no iteration line,
// states no layout when none is given, or contradicts --measured-layout or the cluster's size.
MeasuredRun measured_run_of(const ExploreOptions& options, const TrainingSettings& settings, const Workload& workload, int world);

}  // namespace meshbench::mapping
