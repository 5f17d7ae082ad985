// meshbench: main only dispatches to the subcommands, which each module owns.
#include <array>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/calibrate/calibrate.hpp"
#include "analysis/calibrate/calibrate_command.hpp"
#include "analysis/compare/compare_command.hpp"
#include "analysis/doctor/doctor_command.hpp"
#include "analysis/history/history_command.hpp"
#include "analysis/import/import_command.hpp"
#include "analysis/logs/logs_command.hpp"
#include "analysis/report/report_command.hpp"
#include "bench/calibration/calibrate_command.hpp"
#include "bench/io/io_command.hpp"
#include "bench/run/run_command.hpp"
#include "common/error.hpp"
#include "common/version.hpp"
#include "mapping/commands.hpp"
#include "slurm/commands.hpp"
#include "topology/commands.hpp"

namespace {

// What the probe of run --calibrate and of calibrate without files measured, fitted: bench
// measures, analysis fits, and bench never links analysis' fit (it reads results files through
// report), so the binary hands it in (docs/architecture.md, "Modules and their arrows").
meshbench::mapping::Calibration fit_probe_files(const std::vector<std::string>& results_files, bool require_sharing) {
  meshbench::analysis::CalibrateRequest request;
  request.results_files = results_files;
  request.require_sharing = require_sharing;
  return meshbench::analysis::calibrate_from_results(request);
}

int run(const meshbench::Args& args) { return meshbench::bench::run_command(args, fit_probe_files); }

// `meshbench calibrate`: with results files it fits from them (analysis); without, it measures
// the probes under mpirun/srun (bench) and fits those (analysis's fit) — the one place that
// decides which.
int calibrate(const meshbench::Args& args) {
  if (meshbench::analysis::calibrate_args_name_files(args)) return meshbench::analysis::calibrate_command(args);
  for (const auto& a : args) {
    if (a != "--help" && a != "-h") continue;
    const int status = meshbench::analysis::calibrate_command(args);
    std::cout << "\nwithout results files (meshbench calibrate --out cost.json under mpirun/srun):\n\n";
    return status != meshbench::kExitOk ? status : meshbench::bench::calibrate_probe_command(args, fit_probe_files);
  }
  return meshbench::bench::calibrate_probe_command(args, fit_probe_files);
}

struct Subcommand {
  std::string_view name;
  std::string_view summary;
  int (*run)(const meshbench::Args&);
};

constexpr std::array kSubcommands = {
    Subcommand{"topo", "discover or load the cluster topology and print it", meshbench::topology::topo_command},
    Subcommand{"groups", "print Megatron-Core's rank groups for a parallel layout", meshbench::mapping::groups_command},
    Subcommand{"workload", "print a model config's or launch script's shape, parameters and traffic", meshbench::mapping::workload_command},
    Subcommand{"explore", "rank every valid layout of a model by memory, compute, bubble and communication",
               meshbench::mapping::explore_command},
    Subcommand{"plan", "generate, score and rank candidate mappings for a layout", meshbench::mapping::plan_command},
    Subcommand{"predict", "print nccl-tests' table of what a collective should take on the hardware", meshbench::mapping::predict_command},
    Subcommand{"run", "measure the candidate mappings (under mpirun/srun) into an HDF5 file", run},
    Subcommand{"io", "measure checkpoint write and read-back bandwidth into a folder (under mpirun/srun)", meshbench::bench::io_command},
    Subcommand{"report", "rank a results file's mappings for ML and infrastructure readers", meshbench::analysis::report_command},
    Subcommand{"calibrate", "measure (or fit from results files) the cost model's parameters into a calibration file", calibrate},
    Subcommand{"compare", "compare two results files and flag regressions", meshbench::analysis::compare_command},
    Subcommand{"history", "find change points over a series of runs and what changed there", meshbench::analysis::history_command},
    Subcommand{"doctor", "pre-flight checks: environment, versions, provider, devices, clocks", meshbench::analysis::doctor_command},
    Subcommand{"import", "turn nccl-tests or OSU logs into a results file; read a Megatron-LM training log",
               meshbench::analysis::import_command},
    Subcommand{"logs", "parse NCCL logs and merge logs into one time-ordered view", meshbench::analysis::logs_command},
    Subcommand{"slurm", "write sbatch job scripts for HyperPod and ParallelCluster", meshbench::slurm::slurm_command},
};

void print_usage(std::ostream& out) {
  out << "usage: meshbench [--help] [--version] SUBCOMMAND [options]\n\n"
         "meshbench finds the placement of EP/DP/TP/PP groups on a cluster's GPUs that communicates\n"
         "fastest, and tells whether a driver, NCCL or libfabric upgrade made anything slower.\n\n"
         "subcommands:\n";
  for (const auto& s : kSubcommands) {
    out << "  " << s.name << std::string(10 - s.name.size(), ' ') << s.summary << "\n";
  }
  out << "\n'meshbench SUBCOMMAND --help' lists a subcommand's options with their defaults.\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(std::cerr);
    return meshbench::kExitBadInput;
  }
  const std::string_view first = argv[1];
  if (first == "--help" || first == "-h" || first == "help") {
    print_usage(std::cout);
    return meshbench::kExitOk;
  }
  if (first == "--version") {
    std::cout << "meshbench " << meshbench::kVersion << "\nbackends: " << meshbench::kBackends << "\n";
    return meshbench::kExitOk;
  }
  for (const auto& s : kSubcommands) {
    if (s.name != first) continue;
    try {
      return s.run(meshbench::Args(argv + 2, argv + argc));
    } catch (const meshbench::InputError& e) {
      std::cerr << "meshbench " << s.name << ": error: " << e.what() << "\n";
      return meshbench::kExitBadInput;
    } catch (const std::exception& e) {
      std::cerr << "meshbench " << s.name << ": failed: " << e.what() << "\n";
      return meshbench::kExitFailure;
    }
  }
  std::cerr << "meshbench: error: unknown subcommand '" << first << "'; see 'meshbench --help'\n";
  return meshbench::kExitBadInput;
}
