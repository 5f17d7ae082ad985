#include <algorithm>
#include <sstream>

#include "common/error.hpp"
#include "common/strings.hpp"
#include "common/version.hpp"
#include "slurm/job.hpp"
#include "slurm/quote.hpp"

namespace meshbench::slurm {

namespace {

std::string_view platform_title(Platform p) {
  switch (p) {
    case Platform::hyperpod: return "SageMaker HyperPod (Slurm)";
    case Platform::parallelcluster: return "AWS ParallelCluster";
    case Platform::generic: return "a Slurm cluster";
  }
  return "a Slurm cluster";
}

// Values that Slurm parses itself (partition, time) and that need no quoting when plain.
bool plain_slurm_value(std::string_view v) {
  return !v.empty() && std::all_of(v.begin(), v.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_.:,+-").find(c) != std::string_view::npos;
  });
}

std::string bash_array(const std::vector<std::string>& words) { return "(" + join(words, " ", shell_word) + ")"; }

std::string_view kind_title(JobKind kind) {
  switch (kind) {
    case JobKind::bench: return "benchmark";
    case JobKind::train: return "training launch";
    case JobKind::gate: return "upgrade gate";
  }
  return "benchmark";
}

// One bash word for a --new-env assignment: the literal text quoted, each variable expanded
// (empty when unset) where the word is evaluated.
std::string assignment_word(const EnvAssignment& e) {
  std::string out = e.name + "=";
  for (const auto& piece : e.value) out += piece.variable ? "\"${" + piece.text + ":-}\"" : shell_word(piece.text);
  return out;
}

// "%" starts a filename pattern in --output (%j, %x); a literal one is "%%".
std::string escape_percent(std::string_view path) {
  std::string out;
  for (char c : path) out += (c == '%') ? std::string("%%") : std::string(1, c);
  return out;
}

}  // namespace

Platform parse_platform(std::string_view name) {
  if (name == "hyperpod") return Platform::hyperpod;
  if (name == "parallelcluster") return Platform::parallelcluster;
  if (name == "generic") return Platform::generic;
  throw InputError("unknown platform '" + std::string(name) + "'; use --platform hyperpod|parallelcluster|generic");
}

std::string_view to_string(Platform platform) {
  switch (platform) {
    case Platform::hyperpod: return "hyperpod";
    case Platform::parallelcluster: return "parallelcluster";
    case Platform::generic: return "generic";
  }
  return "generic";
}

std::string_view to_string(JobKind kind) {
  switch (kind) {
    case JobKind::bench: return "bench";
    case JobKind::train: return "train";
    case JobKind::gate: return "gate";
  }
  return "bench";
}

namespace {

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

// The shell variable name at the start of `text` (empty when there is none).
std::string_view leading_name(std::string_view text) {
  if (text.empty() || !name_start(text.front())) return {};
  std::size_t n = 1;
  while (n < text.size() && name_char(text[n])) ++n;
  return text.substr(0, n);
}

}  // namespace

EnvAssignment parse_env_assignment(std::string_view text) {
  const auto eq = text.find('=');
  EnvAssignment out;
  out.name = std::string(text.substr(0, eq == std::string_view::npos ? 0 : eq));
  if (eq == std::string_view::npos || out.name.empty() || leading_name(out.name).size() != out.name.size()) {
    throw InputError("--new-env '" + std::string(text) + "' is not NAME=VALUE with a shell variable name (letters, digits, _)");
  }
  std::string literal;
  const auto flush = [&] {
    if (!literal.empty()) out.value.push_back({false, literal});
    literal.clear();
  };
  const std::string_view value = text.substr(eq + 1);
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string_view rest = value.substr(i + 1);
    if (value[i] == '$' && !rest.empty() && rest.front() == '{') {
      const auto close = rest.find('}');
      const std::string_view inner = close == std::string_view::npos ? rest.substr(1) : rest.substr(1, close - 1);
      if (close == std::string_view::npos || inner.empty() || leading_name(inner).size() != inner.size()) {
        throw InputError("--new-env " + out.name + ": ${...} may only name a variable, as in ${LD_LIBRARY_PATH}");
      }
      flush();
      out.value.push_back({true, std::string(inner)});
      i += close + 1;
    } else if (const auto name = value[i] == '$' ? leading_name(rest) : std::string_view(); !name.empty()) {
      flush();
      out.value.push_back({true, std::string(name)});
      i += name.size();
    } else {
      literal += value[i];
    }
  }
  flush();
  return out;
}

JobSpec defaults_for(Platform platform) {
  JobSpec job;
  job.platform = platform;
  // Both AWS platforms mount FSx for Lustre at /fsx (ParallelCluster: wherever SharedStorage's
  // MountDir says; AWS's templates use /fsx, its own tests /shared).
  if (platform != Platform::generic) job.output_dir = "/fsx/meshbench";
  // HyperPod partitions have no GPU GRES (AWS's own scripts keep the line commented out there);
  // ParallelCluster configures GresTypes=gpu.
  job.gpu_gres = platform == Platform::parallelcluster;
  job.auto_resume = platform == Platform::hyperpod;
  return job;
}

void validate_job(const JobSpec& job) {
  if (job.nodes < 1 || job.nodes > 100000) throw InputError("--nodes must be at least 1");
  if (job.tasks_per_node < 1 || job.tasks_per_node > 1024) throw InputError("--gpus-per-node must be 1..1024");
  if (job.job_name.empty()) throw InputError("--job-name must not be empty");
  if (job.job_name.size() > 200) throw InputError("--job-name is longer than 200 characters");
  (void)sbatch_quote("--job-name", job.job_name);  // throws for a newline or control character
  if (!job.partition.empty() && !plain_slurm_value(job.partition)) {
    throw InputError("--partition '" + job.partition + "' is not a partition name (letters, digits, _.:,+-)");
  }
  if (!job.time_limit.empty() && !plain_slurm_value(job.time_limit)) {
    throw InputError("--time '" + job.time_limit + "' is not a Slurm time (e.g. 30, 2:00:00, 1-00:00:00)");
  }
  if (job.output_dir.empty() || job.output_dir.front() != '/') {
    throw InputError("--output-dir must be an absolute path on the shared filesystem");
  }
  if (job.output_dir.find('\\') != std::string::npos) {
    // A backslash turns off every %-pattern in Slurm's --output file name.
    throw InputError("--output-dir must not contain a backslash (Slurm's --output treats it specially)");
  }
  (void)sbatch_quote("--output-dir", job.output_dir);
  if (job.env_file.empty()) throw InputError("--env-file must name the environment file the job sources");
  if (job.meshbench.empty()) throw InputError("--meshbench must name the meshbench binary");
  if (!job.container_mounts.empty() && job.container_image.empty()) {
    throw InputError("--container-mounts needs --container-image");
  }
  if (!job.io_dir.empty() && job.io_dir.front() != '/') throw InputError("--io must be an absolute path on the filesystem to measure");
  if (job.io_dir.empty() && !job.io_args.empty()) throw InputError("--io-args needs --io DIR");
  for (const auto& a : job.io_args) {
    for (const char* own : {"--out", "--dir", "--append", "--force"}) {
      if (a == own || a.rfind(std::string(own) + "=", 0) == 0)
        throw InputError("--io-args must not set " + std::string(own) + ": the job sets --dir from --io and adds to its results.h5");
    }
  }
  if (job.kind != JobKind::gate && (!job.new_env.empty() || !job.history_dir.empty() || job.new_runs != JobSpec().new_runs)) {
    throw InputError("--new-env, --new-runs and --history belong to --job gate (the interleaved upgrade gate)");
  }
  if (job.kind == JobKind::gate) {
    if (!job.io_dir.empty()) throw InputError("--io belongs to --job bench; a gate job measures the gate configuration only");
    if (job.new_env.empty()) {
      throw InputError(
          "--job gate needs --new-env NAME=VALUE, the candidate's environment (e.g. LD_LIBRARY_PATH=/opt/nccl-new/lib:$LD_LIBRARY_PATH)");
    }
    for (const auto& e : job.new_env) (void)parse_env_assignment(e);
    if (job.new_runs < kMinNewRuns || job.new_runs > kMaxNewRuns) {
      throw InputError("--new-runs must be " + std::to_string(kMinNewRuns) + ".." + std::to_string(kMaxNewRuns) +
                       " (2 is the recipe's default, 4 to see single points)");
    }
    if (job.history_dir.empty() || job.history_dir.front() != '/') {
      throw InputError("--job gate needs --history DIR, an absolute folder on the shared filesystem that keeps every baseline run");
    }
  }
  if (job.kind == JobKind::train) {
    if (!job.io_dir.empty()) throw InputError("--io belongs to --job bench; a train job runs --command");
    if (job.command.empty()) throw InputError("--job train needs --command \"PROGRAM ARGS\" (what to launch)");
    if (!job.run_args.empty() || job.doctor) {
      throw InputError("--run-args and --doctor belong to --job bench or gate; a train job runs --command");
    }
  } else {
    if (!job.command.empty()) {
      throw InputError("--command belongs to --job train; a " + std::string(to_string(job.kind)) + " job runs meshbench run");
    }
    for (const auto& a : job.run_args) {
      if (a == "--out" || a.rfind("--out=", 0) == 0) {
        throw InputError("--run-args must not set --out: the job writes results.h5 into its run directory under --output-dir");
      }
    }
  }
  if (job.hostfile) {
    const Hostfile& hf = *job.hostfile;
    if (static_cast<int>(hf.nodes.size()) != job.nodes) {
      throw InputError("hostfile " + hf.path + " places tasks on " + std::to_string(hf.nodes.size()) + " node(s) but --nodes is " +
                       std::to_string(job.nodes));
    }
    if (hf.tasks_per_node != job.tasks_per_node) {
      throw InputError("hostfile " + hf.path + " has " + std::to_string(hf.tasks_per_node) + " task(s) per node but --gpus-per-node is " +
                       std::to_string(job.tasks_per_node));
    }
  }
}

namespace {

// The shebang, the command line that wrote the script, and the #SBATCH options.
void write_sbatch_header(std::ostream& s, const JobSpec& job) {
  std::vector<std::string> cmdline;
  for (const auto& w : job.generated_by) cmdline.push_back(shell_word(w));
  s << "#!/bin/bash\n"
    << "# meshbench " << kind_title(job.kind) << " job for " << platform_title(job.platform) << ", written by meshbench " << kVersion
    << ":\n"
    << "#   meshbench slurm " << join(cmdline, " ") << "\n"
    << "# Review it, then submit it with sbatch. Every value taken from that command line is a\n"
    << "# quoted shell word below: a name or path with shell metacharacters is data, never code.\n";
  s << "#SBATCH --job-name=" << sbatch_quote("--job-name", job.job_name) << "\n"
    << "#SBATCH --nodes=" << job.nodes << "\n"
    << "#SBATCH --ntasks-per-node=" << job.tasks_per_node << "\n";
  if (job.gpu_gres) s << "#SBATCH --gpus-per-node=" << job.tasks_per_node << "\n";
  s << "#SBATCH --exclusive\n"
    << "#SBATCH --wait-all-nodes=1\n"
    << "#SBATCH --output="
    << sbatch_quote("--output-dir", escape_percent(job.output_dir) + "/" + std::string(to_string(job.kind)) + "-%j.out") << "\n";
  if (!job.partition.empty()) s << "#SBATCH --partition=" << job.partition << "\n";
  if (!job.time_limit.empty()) s << "#SBATCH --time=" << job.time_limit << "\n";
  if (job.hostfile) s << "#SBATCH --nodelist=" << join(job.hostfile->nodes, ",") << "\n";
  s << "set -euo pipefail\n";
  if (job.kind == JobKind::gate) {
    s << "# The job's exit status is compare's: 0 clean, 1 regression, 3 inconclusive. Any other failure\n"
      << "# (environment file, doctor, a run) exits 2, which no pipeline reads as a verdict.\n"
      << "judged=no\n"
      << "trap '[[ $judged == yes ]] || exit 2' EXIT\n";
  }
  s << "\n";
}

// The values taken from the command line, each a quoted shell word, in one block.
void write_settings(std::ostream& s, const JobSpec& job) {
  const bool bench = job.kind != JobKind::train;  // bench and gate run meshbench
  s << "# ---- generated settings ----\n";
  if (bench) s << "MESHBENCH=" << shell_quote(job.meshbench) << "\n";
  s << "OUTPUT_DIR=" << shell_quote(job.output_dir) << "\n"
    << "ENV_FILE=" << shell_quote(job.env_file) << "\n";
  if (!job.container_image.empty()) {
    s << "CONTAINER_IMAGE=" << shell_quote(job.container_image) << "\n";
    if (!job.container_mounts.empty()) s << "CONTAINER_MOUNTS=" << shell_quote(job.container_mounts) << "\n";
  }
  if (job.hostfile) {
    s << "HOSTFILE=" << shell_quote(job.hostfile->path) << "\n"
      << "HOSTFILE_TASKS=" << job.hostfile->hosts.size() << "\n";
  }
  if (bench) {
    // Empty arrays are left out: "${A[@]}" of an empty array fails under set -u in bash < 4.4
    // (Amazon Linux 2).
    if (job.doctor && !job.doctor_args.empty()) s << "DOCTOR_ARGS=" << bash_array(job.doctor_args) << "\n";
    if (!job.run_args.empty()) s << "RUN_ARGS=" << bash_array(job.run_args) << "\n";
    if (!job.io_dir.empty()) {
      s << "IO_DIR=" << shell_quote(job.io_dir) << "\n";
      if (!job.io_args.empty()) s << "IO_ARGS=" << bash_array(job.io_args) << "\n";
    }
    if (job.kind == JobKind::gate) {
      s << "HISTORY_DIR=" << shell_quote(job.history_dir) << "\n"
        << "# The candidate's environment, for the new runs only; its variables expand when the runs\n"
        << "# start (after the environment file is sourced).\n"
        << "new_env() { NEW_ENV=(" << join(job.new_env, " ", [](const std::string& e) { return assignment_word(parse_env_assignment(e)); })
        << "); }\n";
    }
  } else {
    s << "COMMAND=" << bash_array(job.command) << "\n";
  }
  s << "# ----------------------------\n\n";
}

// The run directory, with copies of the environment file and the script; the file sourced.
void write_environment(std::ostream& s, const JobSpec& job) {
  s << "die() { printf 'meshbench job: %s\\n' \"$*\" >&2; exit 2; }\n"
    << ": \"${SLURM_JOB_ID:?submit this script with sbatch}\"\n\n"
    << "# Every job sources the one environment file (NCCL / libfabric / EFA settings) and keeps a\n"
    << "# copy, and a copy of this script, in its run directory: the record of what it ran with.\n"
    << "[[ -r $ENV_FILE ]] || die \"environment file $ENV_FILE is not readable on $(hostname)\"\n"
    << "run_dir=\"$OUTPUT_DIR/" << to_string(job.kind) << "-$SLURM_JOB_ID\"\n"
    << "mkdir -p -- \"$run_dir\"\n"
    << "cp -- \"$ENV_FILE\" \"$run_dir/job.env\"\n"
    << "cp -- \"$0\" \"$run_dir/job.sbatch\" 2>/dev/null || true\n"
    << "set -a  # export every variable the file sets, so srun's tasks inherit them\n"
    << "# shellcheck source=/dev/null\n"
    << "source \"$ENV_FILE\"\n"
    << "set +a\n\n";
}

// The srun command line every step starts with, and step(), which records each step.
void write_srun(std::ostream& s, const JobSpec& job) {
  s << "# One task per GPU; Open MPI and Slurm meet through PMIx (pmi2 fails with Open MPI builds\n"
    << "# that use an external PMIx, and ParallelCluster's MpiDefault is none).\n"
    << "SRUN=(srun --mpi=pmix)\n";
  if (job.auto_resume) s << "SRUN+=(--auto-resume=1)  # HyperPod: requeue on a replaced node\n";
  if (!job.container_image.empty()) {
    s << "# pyxis/enroot; the mounts must include OUTPUT_DIR so the tasks can write there.\n"
      << "SRUN+=(--container-image=\"$CONTAINER_IMAGE\"";
    if (!job.container_mounts.empty()) s << " --container-mounts=\"$CONTAINER_MOUNTS\"";
    s << ")\n";
  }
  if (job.kind == JobKind::gate) s << "SRUN_ONE=(\"${SRUN[@]}\" --nodes=1 --ntasks=1)  # compare: one task\n";
  s << "# Each step's command line, as run, goes to steps.txt in the run directory.\n"
    << "step() {\n"
    << "  printf '%q ' \"$@\" >>\"$run_dir/steps.txt\"\n"
    << "  printf '\\n' >>\"$run_dir/steps.txt\"\n"
    << "  \"$@\"\n"
    << "}\n"
    << "echo \"meshbench job $SLURM_JOB_ID on ${SLURM_JOB_NODELIST:-?}: run directory $run_dir\"\n\n";
}

// The pre-flight doctor on every task (bench jobs that ask for it).
void write_doctor_step(std::ostream& s, const JobSpec& job) {
  if (job.kind != JobKind::train && job.doctor) {
    s << "# Pre-flight on every task: environment template, versions, provider, devices, clocks.\n"
      << "# A FAIL stops the job before any benchmark time is spent.\n"
      << "if ! step \"${SRUN[@]}\" \"$MESHBENCH\" doctor" << (job.doctor_args.empty() ? "" : " \"${DOCTOR_ARGS[@]}\"")
      << " >\"$run_dir/doctor.txt\" 2>&1; then\n"
      << "  tail -n 40 \"$run_dir/doctor.txt\" >&2 || true\n"
      << "  die \"meshbench doctor reported a failure; see $run_dir/doctor.txt (nothing was measured)\"\n"
      << "fi\n\n";
  }
}

// A hostfile's placement: task i on line i's host.
void write_hostfile_placement(std::ostream& s, const JobSpec& job) {
  if (job.hostfile) {
    s << "# The chosen placement: task i runs on line i's host (srun --distribution=arbitrary).\n"
      << "# The job uses, and keeps, a copy without comments or blank lines.\n"
      << "[[ -r $HOSTFILE ]] || die \"hostfile $HOSTFILE is not readable on $(hostname)\"\n"
      << "sed -e 's/#.*//' -e 's/[[:space:]]//g' -- \"$HOSTFILE\" | grep -v '^$' >\"$run_dir/hostfile\" || true\n"
      << "[[ $(wc -l <\"$run_dir/hostfile\") -eq $HOSTFILE_TASKS ]] ||\n"
      << "  die \"hostfile $HOSTFILE no longer has $HOSTFILE_TASKS tasks; regenerate this job\"\n"
      << "export SLURM_HOSTFILE=\"$run_dir/hostfile\"\n"
      << "SRUN+=(--distribution=arbitrary --ntasks=\"$HOSTFILE_TASKS\")\n\n";
  }
}

// The step the job is for: meshbench run, or the training command.
void write_main_step(std::ostream& s, const JobSpec& job) {
  const bool bench = job.kind == JobKind::bench;
  if (bench) {
    s << "step \"${SRUN[@]}\" \"$MESHBENCH\" run" << (job.run_args.empty() ? "" : " \"${RUN_ARGS[@]}\"")
      << " --out \"$run_dir/results.h5\"\n"
      << "echo \"meshbench job: results in $run_dir/results.h5\"\n";
    if (!job.io_dir.empty()) {
      s << "\n# Checkpoint bandwidth: every task writes its shard into IO_DIR and reads it back (a file per\n"
        << "# task, then one shared file); io removes what it wrote and adds the /io table to the results.\n"
        << "step \"${SRUN[@]}\" \"$MESHBENCH\" io --dir \"$IO_DIR\"" << (job.io_args.empty() ? "" : " \"${IO_ARGS[@]}\"")
        << " --out \"$run_dir/results.h5\" --append\n"
        << "echo \"meshbench job: checkpoint bandwidth into $IO_DIR added to $run_dir/results.h5\"\n";
    }
  } else {
    s << "step \"${SRUN[@]}\" \"${COMMAND[@]}\"\n";
  }
}

// The gate: baseline and new runs launched alternately (base1 new1 base2 ... new K base K+1), the
// candidate's environment on the new ones only; compare --interleaved writes the verdict; the
// baselines join the history; the job exits with compare's status.
void write_gate_steps(std::ostream& s, const JobSpec& job) {
  const int k = job.new_runs;
  const std::string run = std::string(" \"${SRUN[@]}\" \"$MESHBENCH\" run") + (job.run_args.empty() ? "" : " \"${RUN_ARGS[@]}\"");
  s << "# The gate (docs/gate.md): " << k + 1 << " runs of the installed version (base) and " << k << " of the candidate (new),\n"
    << "# launched alternately, so that a slow spell of the machine falls on both sides. The\n"
    << "# candidate's environment reaches the new runs only.\n"
    << "mkdir -p -- \"$HISTORY_DIR\" || die \"cannot create the history folder $HISTORY_DIR\"\n"
    << "new_env\n";
  std::string base_files, new_files;
  for (int i = 1; i <= k + 1; ++i) {
    const std::string n = std::to_string(i);
    s << "step" << run << " --out \"$run_dir/base" << n << ".h5\" || die \"baseline run " << n << " failed; nothing judged\"\n";
    base_files += " \"$run_dir/base" + n + ".h5\"";
    if (i > k) break;
    s << "step env \"${NEW_ENV[@]}\"" << run << " --out \"$run_dir/new" << n << ".h5\" || die \"new run " << n
      << " failed; nothing judged\"\n";
    new_files += " \"$run_dir/new" + n + ".h5\"";
  }
  // SLURM_HOSTFILE would make the one-task srun place a task per line.
  s << "\n# The verdict: each new run against the baselines launched just before and after it, with\n"
    << "# each point's noise from the history once it holds the 5 runs --history needs.\n"
    << "judge=(" << (job.hostfile ? "env -u SLURM_HOSTFILE " : "") << "\"${SRUN_ONE[@]}\" \"$MESHBENCH\" compare --interleaved"
    << base_files << " --" << new_files << ")\n"
    << "shopt -s nullglob\n"
    << "history_runs=(\"$HISTORY_DIR\"/*.h5)\n"
    << "shopt -u nullglob\n"
    << "if (( ${#history_runs[@]} >= 5 )); then\n"
    << "  judge+=(--history \"$HISTORY_DIR\")\n"
    << "  : >\"$run_dir/verdict.txt\"\n"
    << "else\n"
    << "  echo \"gate: $HISTORY_DIR holds ${#history_runs[@]} run(s), fewer than the 5 --history needs:\" \\\n"
    << "    \"judged on this job's baselines alone\" >\"$run_dir/verdict.txt\"\n"
    << "fi\n"
    << "status=0\n"
    << "step \"${judge[@]}\" >>\"$run_dir/verdict.txt\" 2>&1 || status=$?\n"
    << "cat -- \"$run_dir/verdict.txt\"\n\n"
    << "# The history grows by this job's baselines, after the comparison (a history that holds a\n"
    << "# judged run is refused); not when compare refused the runs.\n"
    << "case $status in\n"
    << "  0 | 1 | 3)\n"
    << "    for i in $(seq 1 " << k + 1 << "); do\n"
    << "      cp -- \"$run_dir/base$i.h5\" \"$HISTORY_DIR/gate-$SLURM_JOB_ID-base$i.h5\" ||\n"
    << "        echo \"meshbench job: warning: could not copy base$i.h5 into $HISTORY_DIR\" >&2\n"
    << "    done\n"
    << "    echo \"meshbench job: verdict in $run_dir/verdict.txt; baselines added to $HISTORY_DIR\" ;;\n"
    << "  *)\n"
    << "    echo \"meshbench job: compare exited with status $status; $HISTORY_DIR left as it was\" >&2\n"
    << "    status=2 ;;\n"
    << "esac\n"
    << "judged=yes\n"
    << "exit \"$status\"\n";
}

}  // namespace

std::string render_job_script(const JobSpec& job) {
  validate_job(job);
  std::ostringstream s;
  write_sbatch_header(s, job);
  write_settings(s, job);
  write_environment(s, job);
  write_srun(s, job);
  write_doctor_step(s, job);
  write_hostfile_placement(s, job);
  if (job.kind == JobKind::gate) write_gate_steps(s, job);
  else write_main_step(s, job);
  return s.str();
}

}  // namespace meshbench::slurm
