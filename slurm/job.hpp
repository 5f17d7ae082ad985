#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "slurm/hostfile.hpp"

namespace meshbench::slurm {

enum class Platform { hyperpod, parallelcluster, generic };
enum class JobKind { bench, train, gate };

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
  std::optional<Hostfile> hostfile;  // the placement: SLURM_HOSTFILE + --distribution=arbitrary
  // gate: new_runs runs of the candidate between new_runs + 1 baselines, launched alternately;
  // the candidate's environment ("NAME=VALUE", $NAME / ${NAME} expanded when the job runs) on
  // the new runs only; then compare --interleaved, with the history when it holds enough runs,
  // and the baselines added to it (docs/gate.md).
  std::vector<std::string> new_env;
  int new_runs = 2;
  std::string history_dir;                // absolute; on the shared filesystem
  std::vector<std::string> generated_by;  // the generating command line, for the header comment
};

// The platform's defaults: output directory, GRES line, auto-resume.
JobSpec defaults_for(Platform platform);

// Throws InputError (one line, naming the option) for anything that cannot go into the script.
void validate_job(const JobSpec& job);

// A --new-env assignment: NAME, and its value as literal text and variable references ($NAME or
// ${NAME}, expanded when the job runs: LD_LIBRARY_PATH=/opt/nccl-new/lib:$LD_LIBRARY_PATH).
// Throws InputError for a NAME that is not a shell variable name or a ${...} that names none.
struct EnvAssignment {
  struct Piece {
    bool variable = false;  // true: text is a variable's name
    std::string text;
  };
  std::string name;
  std::vector<Piece> value;
};
EnvAssignment parse_env_assignment(std::string_view text);

// The least and most --new-runs: 2 is the recipe's default, 4 sees single points.
inline constexpr int kMinNewRuns = 1;
inline constexpr int kMaxNewRuns = 16;

// The sbatch script. Every value from JobSpec is quoted (quote.hpp): data, never code.
std::string render_job_script(const JobSpec& job);

}  // namespace meshbench::slurm
