#pragma once
// explore's command line: the options as given, checked for what needs no file, and turned into
// the search's constraints and the training job's settings.
#include <optional>
#include <string>

#include "common/cli.hpp"
#include "mapping/explore.hpp"
#include "topology/options.hpp"

namespace meshbench::mapping {

struct ExploreOptions {
  topology::TopologyOptions topology;
  int cpu_slots = 0;
  std::string workload, cost_model, format, export_dir, out, recompute = "selective", precision = "bf16";
  std::string tp, cp, pp, vpp, ep, etp;
  std::string measured, measured_layout;  // a Megatron-LM log and, when it prints no arguments, its layout
  int micro_batch = 0, global_batch = 0, top = 10, plan_top = 5, out_top = 2;
  OutputFormat output = OutputFormat::text;
  double gpu_memory = 0, peak_tflops = 0, headroom = 0, efficiency = 0.5, skew = kDefaultRoutingSkew, allowance = 3.0, comm_overlap = 0;
  bool tp_across_nodes = false, no_distributed_optimizer = false, bf16_moments = false, no_sequence_parallel = false, ep_overlap = false,
       no_contention = false, force = false;
  bool skew_given = false;  // --a2av-skew on the command line (else a --cost-model file's, else the default)
};

// nullopt after --help; InputError for a value out of range or an --out that exists without --force.
std::optional<ExploreOptions> parse_explore_options(const Args& args);

// The sizes to try (InputError for a malformed size list).
ExploreConstraints constraints_of(const ExploreOptions& options);

// The job's settings: the options', else the workload file's batch sizes, else the defaults. The
// routing skew is the cost model's (explore_command.cpp), so that the two price one skew.
TrainingSettings settings_of(const ExploreOptions& options, const Workload& workload);

// --measured-layout "tp=1,pp=2,ep=8,vpp=24" (cp 1, vpp 1 and etp = tp unless given) on `world`;
// InputError for a malformed one.
ExploreLayout parse_measured_layout(const std::string& text, int world);

}  // namespace meshbench::mapping
