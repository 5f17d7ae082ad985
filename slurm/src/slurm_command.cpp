// meshbench slurm: writes a reviewable sbatch script (and, when missing, the environment file
// it sources) for HyperPod, ParallelCluster or any Slurm cluster.
#include <filesystem>
#include <iostream>

#include "common/error.hpp"
#include "slurm/commands.hpp"
#include "slurm/env_templates.hpp"
#include "slurm/job.hpp"
#include "slurm/quote.hpp"
#include "write_file.hpp"

namespace meshbench::slurm {

namespace {

namespace fs = std::filesystem;

std::string absolute_path(const std::string& path) {
  std::string out = fs::absolute(fs::path(path)).lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

bool parse_gres(const std::string& value, bool platform_default) {
  if (value == "auto") return platform_default;
  if (value == "yes") return true;
  if (value == "no") return false;
  throw InputError("--gpu-gres must be auto, yes or no (got '" + value + "')");
}

po::options_description options() {
  po::options_description o("options");
  // clang-format off
  o.add_options()
      ("platform", po::value<std::string>(),
       "hyperpod | parallelcluster | generic (required): output directory, GRES line and srun flags follow it")
      ("job", po::value<std::string>()->default_value("bench"),
       "bench: [doctor, then] meshbench run; train: launch --command with the same placement plumbing; "
       "gate: [doctor, then] baseline and new runs alternately, compare --interleaved, exit with its status (docs/gate.md)")
      ("output,o", po::value<std::string>(), "the script to write (default meshbench-<job>.sbatch; - for stdout)")
      ("force", "replace an existing script")
      ("job-name", po::value<std::string>(), "Slurm job name (default meshbench / meshbench-train / meshbench-gate)")
      ("nodes", po::value<int>()->default_value(2), "nodes to allocate (taken from --hostfile when given)")
      ("gpus-per-node", po::value<int>()->default_value(8),
       "GPUs per node = tasks per node, one task per GPU (on a CPU-only cluster: slots per node)")
      ("gpu-gres", po::value<std::string>()->default_value("auto"),
       "auto | yes | no: write '#SBATCH --gpus-per-node' (auto: ParallelCluster only; HyperPod has no GPU GRES)")
      ("partition", po::value<std::string>(), "Slurm partition (default: the cluster's default)")
      ("time", po::value<std::string>(), "time limit, Slurm syntax (e.g. 2:00:00)")
      ("output-dir", po::value<std::string>(),
       "shared directory for the job's output; each job writes <kind>-<jobid>/ there "
       "(default /fsx/meshbench on hyperpod and parallelcluster, ./meshbench-runs on generic)")
      ("env-file", po::value<std::string>(),
       "environment file the job sources and keeps a copy of (default meshbench.env beside the script; "
       "written from --env-template when it does not exist)")
      ("env-template", po::value<std::string>()->default_value("efa"),
       "efa | local: what a new --env-file starts from (local: the local test cluster)")
      ("print-env-template", "print --env-template's text and exit")
      ("meshbench", po::value<std::string>()->default_value("meshbench"),
       "the meshbench binary on the compute nodes (inside the container with --container-image)")
      ("run-args", po::value<std::string>()->default_value(""),
       "bench: arguments for 'meshbench run' (layout, sizes, ...), split like a shell without expansion; "
       "the job adds --out")
      ("doctor", "bench: run 'meshbench doctor' on every task first; a FAIL stops the job")
      ("doctor-args", po::value<std::string>()->default_value(""), "bench: arguments for 'meshbench doctor'")
      ("io", po::value<std::string>()->default_value(""),
       "bench: after the run, 'meshbench io' into this folder (absolute; the shared filesystem whose checkpoint bandwidth to measure), "
       "its rows added to the results file")
      ("io-args", po::value<std::string>()->default_value("--shard-bytes 1G"),
       "bench: arguments for 'meshbench io' (shard sizes or --workload and the layout, --repeats, --budget); the job adds --dir and --out")
      ("new-env", po::value<std::vector<std::string>>()->composing(),
       "gate: NAME=VALUE (repeatable), the candidate's environment, set for the new runs only; $NAME and ${NAME} in VALUE "
       "expand when the job runs, e.g. 'LD_LIBRARY_PATH=/opt/nccl-new/lib:$LD_LIBRARY_PATH' (single-quoted)")
      ("new-runs", po::value<int>()->default_value(2),
       "gate: runs of the candidate, launched between new-runs + 1 baselines (4 to see single points)")
      ("history", po::value<std::string>(),
       "gate: the folder of earlier baseline runs (on the shared filesystem): compare's --history once it holds 5, "
       "and the job adds its baselines to it")
      ("command", po::value<std::string>(),
       "train: the program and arguments srun launches, e.g. \"python train.py --tp 2\" (no shell expansion)")
      ("container-image", po::value<std::string>(), "pyxis/enroot image for srun --container-image")
      ("container-mounts", po::value<std::string>(), "srun --container-mounts (must include --output-dir)")
      ("hostfile", po::value<std::string>(),
       "SLURM_HOSTFILE of the chosen mapping (one host per task, in rank order): the job runs with "
       "srun --distribution=arbitrary on exactly those nodes");
  // clang-format on
  return o;
}

// What runs on the compute nodes: the container, the meshbench binary and its arguments, or
// the training command.
void read_launch(const po::variables_map& vm, JobSpec& job) {
  const bool in_container = vm.count("container-image") != 0U;
  if (in_container) job.container_image = vm["container-image"].as<std::string>();
  if (vm.count("container-mounts") != 0U) job.container_mounts = vm["container-mounts"].as<std::string>();
  job.meshbench = vm["meshbench"].as<std::string>();
  // A relative path means the submit host's working directory; inside a container it is the
  // image's business.
  if (!in_container && job.meshbench.find('/') != std::string::npos) job.meshbench = absolute_path(job.meshbench);
  job.run_args = split_words("--run-args", vm["run-args"].as<std::string>());
  job.doctor = vm.count("doctor") != 0U;
  job.doctor_args = split_words("--doctor-args", vm["doctor-args"].as<std::string>());
  if (job.kind != JobKind::train && !job.doctor && !job.doctor_args.empty()) {
    throw InputError("--doctor-args needs --doctor");
  }
  job.io_dir = vm["io"].as<std::string>();
  if (!job.io_dir.empty()) job.io_args = split_words("--io-args", vm["io-args"].as<std::string>());
  if (vm.count("command") != 0U) job.command = split_words("--command", vm["command"].as<std::string>());
  if (job.kind != JobKind::gate && (vm.count("new-env") != 0U || !vm["new-runs"].defaulted() || vm.count("history") != 0U)) {
    throw InputError("--new-env, --new-runs and --history belong to --job gate (the interleaved upgrade gate)");
  }
  if (vm.count("new-env") != 0U) job.new_env = vm["new-env"].as<std::vector<std::string>>();
  job.new_runs = vm["new-runs"].as<int>();
  if (vm.count("history") != 0U) job.history_dir = absolute_path(vm["history"].as<std::string>());
}

// The job as the options describe it, on the platform's defaults (all but the environment file,
// which depends on where the script goes).
JobSpec job_from_options(const po::variables_map& vm) {
  if (vm.count("platform") == 0U) throw InputError("--platform is required: hyperpod, parallelcluster or generic");
  JobSpec job = defaults_for(parse_platform(vm["platform"].as<std::string>()));
  const std::string kind = vm["job"].as<std::string>();
  if (kind == "train") job.kind = JobKind::train;
  else if (kind == "gate") job.kind = JobKind::gate;
  else if (kind != "bench") throw InputError("--job must be bench, train or gate (got '" + kind + "')");
  job.job_name = vm.count("job-name") != 0U   ? vm["job-name"].as<std::string>()
                 : job.kind == JobKind::bench ? std::string("meshbench")
                                              : "meshbench-" + std::string(to_string(job.kind));
  job.nodes = vm["nodes"].as<int>();
  job.tasks_per_node = vm["gpus-per-node"].as<int>();
  job.gpu_gres = parse_gres(vm["gpu-gres"].as<std::string>(), job.gpu_gres);
  if (vm.count("partition") != 0U) job.partition = vm["partition"].as<std::string>();
  if (vm.count("time") != 0U) job.time_limit = vm["time"].as<std::string>();
  job.output_dir = absolute_path(vm.count("output-dir") != 0U ? vm["output-dir"].as<std::string>()
                                 : job.output_dir.empty()     ? std::string("meshbench-runs")
                                                              : job.output_dir);
  read_launch(vm, job);
  if (vm.count("hostfile") != 0U) {
    job.hostfile = read_hostfile(vm["hostfile"].as<std::string>());
    // The placement decides the shape unless the user said otherwise (then they must agree).
    if (vm["nodes"].defaulted()) job.nodes = static_cast<int>(job.hostfile->nodes.size());
    if (vm["gpus-per-node"].defaulted()) job.tasks_per_node = job.hostfile->tasks_per_node;
  }
  return job;
}

// Where the script goes: a file (its absolute path) or stdout ("-"); the environment file sits
// beside it by default.
struct ScriptTarget {
  bool to_stdout = false;
  std::string path, dir;
};

ScriptTarget script_target(const po::variables_map& vm, const JobSpec& job) {
  const std::string output =
      vm.count("output") != 0U ? vm["output"].as<std::string>() : "meshbench-" + std::string(to_string(job.kind)) + ".sbatch";
  ScriptTarget t;
  t.to_stdout = output == "-";
  t.path = t.to_stdout ? std::string() : absolute_path(output);
  t.dir = t.to_stdout ? absolute_path(".") : fs::path(t.path).parent_path().string();
  return t;
}

void print_script(const std::string& script, const JobSpec& job, const EnvTemplate& env) {
  std::cout << script;
  if (!fs::exists(job.env_file)) {
    std::cerr << "meshbench slurm: note: the job sources " << job.env_file
              << ", which does not exist; write it with: meshbench slurm --platform " << to_string(job.platform)
              << " --print-env-template --env-template " << env.name << " > " << shell_quote(job.env_file) << "\n";
  }
}

// Writes the script, and the environment file when there is none yet, and says how to submit.
void write_script(const std::string& script, const std::string& script_path, const JobSpec& job, const EnvTemplate& env, bool force) {
  write_job_file(script_path, script, 0755, force);
  std::cout << "wrote " << script_path << ": " << to_string(job.kind) << " job for " << to_string(job.platform) << ", " << job.nodes
            << " node(s) x " << job.tasks_per_node << " task(s)"
            << (job.hostfile ? ", placement from " + job.hostfile->path : std::string())
            << (job.kind == JobKind::gate
                    ? ", " + std::to_string(job.new_runs + 1) + " baseline and " + std::to_string(job.new_runs) + " new run(s)"
                    : std::string())
            << "\n";
  if (fs::exists(job.env_file)) {
    std::cout << "environment: " << job.env_file << " (existing file kept; the job sources it)\n";
  } else {
    // Never replaced once there: it is the reviewed, shared file (even with --force).
    write_job_file(job.env_file, env.text, 0644, false);
    std::cout << "environment: " << job.env_file << " (new, from the '" << env.name << "' template; review it, every job sources it)\n";
  }
  if (!fs::is_directory(job.output_dir)) {
    std::cout << "note: " << job.output_dir << " does not exist here; create it on the shared filesystem before "
              << "sbatch (Slurm does not create the directory of --output)\n";
  }
  std::cout << "submit: sbatch " << shell_quote(script_path) << "\n";
}

}  // namespace

int slurm_command(const Args& args) {
  const auto parsed =
      parse_command("slurm", "Writes an sbatch script for HyperPod, ParallelCluster or any Slurm cluster.", options(), args, std::cout);
  if (!parsed) return kExitOk;
  const po::variables_map& vm = *parsed;

  const EnvTemplate& env = env_template(vm["env-template"].as<std::string>());
  if (vm.count("print-env-template") != 0U) {
    std::cout << env.text;
    return kExitOk;
  }
  JobSpec job = job_from_options(vm);
  const ScriptTarget target = script_target(vm, job);
  job.env_file =
      absolute_path(vm.count("env-file") != 0U ? vm["env-file"].as<std::string>() : (fs::path(target.dir) / "meshbench.env").string());
  job.generated_by = args;
  const std::string script = render_job_script(job);  // validates everything first
  if (target.to_stdout) {
    print_script(script, job, env);
  } else {
    write_script(script, target.path, job, env, vm.count("force") != 0U);
  }
  return kExitOk;
}

}  // namespace meshbench::slurm
