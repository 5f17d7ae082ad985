#pragma once
// The calibration probe (docs/run.md, "Calibrating"): plan_probes' layouts measured into one
// results file each, and the cost model fitted from them. Used by `meshbench calibrate` without
// results files and by `run --calibrate`.
#include <optional>
#include <string>
#include <vector>

#include "bench/calibration/probe_fit.hpp"
#include "bench/calibration/probe_plan.hpp"
#include "bench/launch.hpp"
#include "bench/reporter.hpp"
#include "bench/runner.hpp"
#include "mapping/calibration.hpp"
#include "results/writer.hpp"

namespace meshbench::bench {

struct ProbeRequest {
  std::string results_base;  // the files are <base>.<probe>.h5
  bool force = false;
  RunOptions options;  // sizes and timing policy; the probe sets dims, ops and isolation
  std::string command_line;
};

// The probe's defaults: what keeps it within a few minutes on a slow link (docs/run.md).
RunOptions probe_run_options();

// <base>.<probe name>.h5 for each probe; `base` loses a trailing ".h5".
std::vector<std::string> probe_file_names(const std::string& base, const std::vector<ProbeLayout>& probes);

struct ProbeResult {
  std::vector<results::ResultsWriter> files;  // rank 0 only
  std::vector<std::string> paths;
  int points = 0;  // measured (isolated and concurrent), counted on rank 0
  double seconds = 0;
};

// InputError unless `path` (a probe results file or a calibration file) can be written: its
// folder exists and is writable, and it does not exist unless `force`.
void check_probe_output(const std::string& path, bool force);

// Rank 0 checks that every probe file can be written (InputError text, empty when fine).
std::string check_probe_outputs(const ProbeRequest& request, const std::vector<ProbeLayout>& probes);

// Measures every probe, one results file each, printing progress on rank 0. Collective over `at`.
// Nothing when the topology has no probe (an odd slot count).
std::optional<ProbeResult> run_probes(const Launch& at, Backend& backend, const topology::ClusterTopology& topo,
                                      const std::vector<int>& slot_of_rank, const std::vector<std::string>& hosts, Watchdog& watchdog,
                                      FailureSink& sink, const ProbeRequest& request, const std::vector<ProbeLayout>& probes);

// Rank 0: the cost model `fit` fits from the probe's files (sharing required where NICs are
// shared), stored in each of them as calibration_json. InputError when the points cannot
// determine it.
mapping::Calibration fit_probes(ProbeResult& probe, const topology::ClusterTopology& topo, const ProbeFit& fit);

struct ProbeOutcome {
  mapping::Calibration calibration;  // rank 0 only
  std::vector<std::string> files;
  int points = 0;
  double probe_seconds = 0, fit_seconds = 0;
};

// Checks the probe's outputs, measures the probes and fits them with `fit` (rank 0). Collective;
// nothing when any input was bad (the one line is printed) or the fit could not determine a
// parameter.
std::optional<ProbeOutcome> probe_and_fit(const Launch& at, Backend& backend, const topology::ClusterTopology& topo,
                                          const std::vector<int>& slot_of_rank, const std::vector<std::string>& hosts, Watchdog& watchdog,
                                          FailureSink& sink, const ProbeRequest& request, const ProbeFit& fit);

}  // namespace meshbench::bench
