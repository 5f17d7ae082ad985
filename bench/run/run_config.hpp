#pragma once
#include <string>
#include <vector>

#include "bench/launch.hpp"
#include "bench/runner.hpp"
#include "common/cli.hpp"
#include "mapping/layout.hpp"

namespace meshbench::bench {

// Everything `meshbench run` was asked to do, parsed and checked before MPI work starts.
struct RunConfig {
  std::string out;
  bool force = false;
  std::string resume;            // the file to continue; also the output then
  std::string plan_file;         // a plan written by `meshbench plan --out`
  bool a2av_skew_given = false;  // --a2av-skew on the command line (else a --plan's own)
  LaunchOptions launch;          // topology, backend, NCCL log, watchdog grace
  mapping::Layout layout;        // world comes from the topology / launch
  std::string workload_file;
  int top = 0;  // 0: every candidate
  std::vector<std::string> mapping_names;
  bool workload_sizes = false;                  // --sizes workload
  bool doctor = true;                           // run the doctor's checks first and record them
  std::string cost_model_file;                  // plan with this calibration or cost-model file
  bool calibrate = false;                       // probe first, plan with the fit, measure the top K and a baseline
  bool nic_counters = true;                     // read every host's NIC counters around every point (nic_counter_sampler.hpp)
  std::string counter_root;                     // the folder the counters are read under ("/" on a live host)
  std::vector<std::string> test_counter_roots;  // test only (MESHBENCH_TEST_COUNTER_ROOTS): roots read in turn
  bool host_copies = false;                     // measure each slot's host<->GPU copy bandwidth before the points
  double gpu_sample_ms = 100;                   // NVML readings of each rank's GPU during every point; 0: none
  RunOptions run;
  std::string output() const { return resume.empty() ? out : resume; }
};

// Adds run's options to `options`; `parse_run_config` then reads the parsed values.
po::options_description run_options_description(RunConfig& config);
// Resolves the option strings (sizes, ops, dimensions, timings) held in `vm` into `config`.
// InputError on an unknown op or dimension, a malformed size spec, or contradictory options.
void finish_run_config(const po::variables_map& vm, RunConfig& config);

}  // namespace meshbench::bench
