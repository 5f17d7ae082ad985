#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slurm/hostfile.hpp"

namespace meshbench::slurm {

enum class Platform { hyperpod, parallelcluster, generic };
enum class JobKind { bench, train };

Platform parse_platform(std::string_view name);  // InputError for an unknown name
std::string_view to_string(Platform platform);
std::string_view to_string(JobKind kind);

// Everything a generated sbatch script says. The generator fills it from the command line;
// render_job_script() turns it into text and validate_job() rejects what cannot be written safely.
struct JobSpec {
  Platform platform = Platform::generic;
  JobKind kind = JobKind::bench;
  std::string job_name = "meshbench";
  int nodes = 2;
  int tasks_per_node = 8;               // one task per GPU
  bool gpu_gres = false;                // "#SBATCH --gpus-per-node" (ParallelCluster configures GRES)
  bool auto_resume = false;             // HyperPod's "srun --auto-resume=1"
  std::string partition;                // optional
  std::string time_limit;               // optional, Slurm's time syntax
  std::string output_dir;               // absolute; on the shared filesystem
  std::string env_file;                 // absolute; sourced by the job and copied beside its output
  std::string meshbench = "meshbench";  // the binary the tasks run (inside the container, if any)
  std::vector<std::string> run_args;    // bench: meshbench run's arguments (layout options, ...)
  bool doctor = false;                  // bench: "meshbench doctor" as a pre-flight step
  std::vector<std::string> doctor_args;
  std::string io_dir;                // bench: "meshbench io" into this folder after the run; empty: no io step
  std::vector<std::string> io_args;  // bench: io's arguments (shard sizes or workload, repeats, budget)
  std::vector<std::string> command;  // train: the program and its arguments
  std::string container_image;       // pyxis/enroot; empty: none
  std::string container_mounts;
  std::optional<Hostfile> hostfile;       // the placement: SLURM_HOSTFILE + --distribution=arbitrary
  std::vector<std::string> generated_by;  // the generating command line, for the header comment
};

// The platform's defaults: output directory, GRES line, auto-resume.
JobSpec defaults_for(Platform platform);

// Throws InputError (one line, naming the option) for anything that cannot go into the script.
void validate_job(const JobSpec& job);

// The sbatch script. Every value from JobSpec is quoted (quote.hpp): data, never code.
std::string render_job_script(const JobSpec& job);

}  // namespace meshbench::slurm
