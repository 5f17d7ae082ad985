// The measured training runs of tests/data/published/megatron-bridge-training-throughput.json as
// explore prices them: each row's model, job, layout, cluster, GPU and published step time.
// Shared by the unit test of `explore --measured` and tests/perf/explore_measured.cpp (the
// table in docs/explore.md, "A measured run").
#pragma once

#include <string>
#include <vector>

#include "mapping/measured_fit.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping {

struct PublishedRun {
  std::string id, model, gpu;  // model: the config folder under tests/data/model-configs
  Workload workload;
  MeasuredRun run;  // the layout, job and published step time (settings at explore's defaults otherwise)
  topology::ClusterTopology cluster;
  ExploreHardware hardware;
};

// Every row on a GPU with a catalog node type (H100: p5.48xlarge, B200: p6-b200.48xlarge).
std::vector<PublishedRun> published_runs();

// explore's step time, ms, for a row's layout and job with these compute constants.
double predicted_step_ms(const PublishedRun& row, double efficiency, double comm_overlap);

// The row's step time as a Megatron-LM log prints it: the arguments block and three iteration
// lines (the first a slower warm-up).
std::string as_megatron_log(const PublishedRun& row);

}  // namespace meshbench::mapping
