#include <gtest/gtest.h>

#include "common/error.hpp"
#include "slurm/job.hpp"
#include "test_util.hpp"

namespace meshbench::slurm {
namespace {

using testing::contains;

JobSpec job_for(Platform p) {
  JobSpec job = defaults_for(p);
  if (job.output_dir.empty()) job.output_dir = "/shared/runs";
  job.env_file = "/shared/meshbench.env";
  job.run_args = {"--tp", "2"};
  return job;
}

// bash -n: the script parses.
void expect_parses(const std::string& script) {
  testing::ScratchDir dir;
  testing::write_file(dir / "job.sbatch", script);
  const auto r = testing::run({"bash", "-n", dir / "job.sbatch"});
  EXPECT_EQ(r.status, 0) << r.output << "\n" << script;
}

// A job the renderer must refuse, with one line that mentions `mention`.
void expect_rejected(const JobSpec& job, const std::string& mention) {
  try {
    (void)render_job_script(job);
    FAIL() << "accepted; expected an error mentioning " << mention;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
  }
}

TEST(slurmJobScript, HyperPodAutoResumesAndRequestsNoGres) {
  const auto s = render_job_script(job_for(Platform::hyperpod));
  EXPECT_TRUE(contains(s, "SRUN+=(--auto-resume=1)"));
  EXPECT_FALSE(contains(s, "#SBATCH --gpus-per-node"));
  EXPECT_TRUE(contains(s, "#SBATCH --output=\"/fsx/meshbench/bench-%j.out\""));
  EXPECT_TRUE(contains(s, "OUTPUT_DIR='/fsx/meshbench'"));
  expect_parses(s);
}

TEST(slurmJobScript, ParallelClusterRequestsGpusThroughGres) {
  auto job = job_for(Platform::parallelcluster);
  job.tasks_per_node = 4;
  const auto s = render_job_script(job);
  EXPECT_TRUE(contains(s, "#SBATCH --gpus-per-node=4\n"));
  EXPECT_TRUE(contains(s, "#SBATCH --ntasks-per-node=4\n"));
  EXPECT_FALSE(contains(s, "auto-resume"));
  expect_parses(s);
}

TEST(slurmJobScript, EveryPlatformRunsOneTaskPerGpuExclusivelyWithPmix) {
  for (Platform p : {Platform::hyperpod, Platform::parallelcluster, Platform::generic}) {
    auto job = job_for(p);
    job.nodes = 3;
    const auto s = render_job_script(job);
    EXPECT_TRUE(contains(s, "#SBATCH --nodes=3\n")) << to_string(p);
    EXPECT_TRUE(contains(s, "#SBATCH --ntasks-per-node=8\n")) << to_string(p);
    EXPECT_TRUE(contains(s, "#SBATCH --exclusive\n")) << to_string(p);
    EXPECT_TRUE(contains(s, "SRUN=(srun --mpi=pmix)")) << to_string(p);
    EXPECT_TRUE(contains(s, "step \"${SRUN[@]}\" \"$MESHBENCH\" run \"${RUN_ARGS[@]}\" --out \"$run_dir/results.h5\""));
    EXPECT_TRUE(contains(s, "RUN_ARGS=(--tp 2)"));
    EXPECT_FALSE(contains(s, "doctor")) << "no doctor step unless asked";
    EXPECT_FALSE(contains(s, "container")) << "no container unless asked";
    expect_parses(s);
  }
  EXPECT_TRUE(defaults_for(Platform::generic).output_dir.empty()) << "generic has no /fsx to assume";
}

TEST(slurmJobScript, SourcesTheEnvFileExportedAndKeepsACopy) {
  const auto s = render_job_script(job_for(Platform::generic));
  EXPECT_TRUE(contains(s, "ENV_FILE='/shared/meshbench.env'"));
  const auto set_a = s.find("set -a");
  const auto source = s.find("source \"$ENV_FILE\"");
  const auto set_plus_a = s.find("set +a");
  const auto first_srun = s.find("step \"${SRUN[@]}\"");
  ASSERT_NE(source, std::string::npos);
  EXPECT_LT(set_a, source);
  EXPECT_LT(source, set_plus_a);
  EXPECT_LT(set_plus_a, first_srun) << "sourced before any step";
  EXPECT_TRUE(contains(s, "cp -- \"$ENV_FILE\" \"$run_dir/job.env\""));
}

TEST(slurmJobScript, DoctorStepComesFirstAndStopsTheJob) {
  auto job = job_for(Platform::hyperpod);
  job.doctor = true;
  job.doctor_args = {"--format", "json"};
  const auto s = render_job_script(job);
  const auto doctor = s.find("\"$MESHBENCH\" doctor \"${DOCTOR_ARGS[@]}\"");
  ASSERT_NE(doctor, std::string::npos);
  EXPECT_LT(doctor, s.find("\"$MESHBENCH\" run"));
  EXPECT_TRUE(contains(s, "DOCTOR_ARGS=(--format json)"));
  EXPECT_TRUE(contains(s, "die \"meshbench doctor reported a failure"));
  expect_parses(s);
}

TEST(slurmJobScript, IoStepFollowsTheRunAndAddsToItsResults) {
  auto job = job_for(Platform::hyperpod);
  job.io_dir = "/fsx/ckpt test";
  job.io_args = {"--shard-bytes", "4G", "--repeats", "2"};
  const auto s = render_job_script(job);
  const auto io =
      s.find("step \"${SRUN[@]}\" \"$MESHBENCH\" io --dir \"$IO_DIR\" \"${IO_ARGS[@]}\" --out \"$run_dir/results.h5\" --append");
  ASSERT_NE(io, std::string::npos) << s;
  EXPECT_GT(io, s.find("\"$MESHBENCH\" run"));
  EXPECT_TRUE(contains(s, "IO_DIR='/fsx/ckpt test'"));
  EXPECT_TRUE(contains(s, "IO_ARGS=(--shard-bytes 4G --repeats 2)"));
  expect_parses(s);
  EXPECT_FALSE(contains(render_job_script(job_for(Platform::hyperpod)), " io --dir")) << "no io step unless asked";
}

TEST(slurmJobScript, IoStepRefusesWhatTheJobSetsItself) {
  auto job = job_for(Platform::generic);
  job.io_dir = "/fsx/ckpt";
  for (const char* own : {"--out", "--dir=/x", "--append"}) {
    job.io_args = {own};
    EXPECT_THROW((void)render_job_script(job), InputError) << own;
  }
  job.io_args = {};
  job.io_dir = "relative/dir";
  EXPECT_THROW((void)render_job_script(job), InputError);
}

TEST(slurmJobScript, ContainerImageAndMountsGoToSrun) {
  auto job = job_for(Platform::hyperpod);
  job.container_image = "nvcr.io#nvidia/pytorch:24.01-py3";
  job.container_mounts = "/fsx:/fsx";
  const auto s = render_job_script(job);
  EXPECT_TRUE(contains(s, "CONTAINER_IMAGE='nvcr.io#nvidia/pytorch:24.01-py3'"));
  EXPECT_TRUE(contains(s, "SRUN+=(--container-image=\"$CONTAINER_IMAGE\" --container-mounts=\"$CONTAINER_MOUNTS\")"));
  expect_parses(s);
}

TEST(slurmJobScript, HostfilePinsTheNodesAndTheTaskOrder) {
  auto job = job_for(Platform::generic);
  job.hostfile = parse_hostfile("/shared/tp-inside.hostfile", "n2\nn2\nn7\nn7\n");
  job.nodes = 2;
  job.tasks_per_node = 2;
  const auto s = render_job_script(job);
  EXPECT_TRUE(contains(s, "#SBATCH --nodelist=n2,n7\n"));
  EXPECT_TRUE(contains(s, "HOSTFILE='/shared/tp-inside.hostfile'\nHOSTFILE_TASKS=4\n"));
  EXPECT_TRUE(contains(s, "export SLURM_HOSTFILE=\"$run_dir/hostfile\""));
  EXPECT_TRUE(contains(s, "SRUN+=(--distribution=arbitrary --ntasks=\"$HOSTFILE_TASKS\")"));
  expect_parses(s);
}

TEST(slurmJobScript, TrainJobLaunchesTheCommandWithThePlacement) {
  auto job = job_for(Platform::parallelcluster);
  job.kind = JobKind::train;
  job.run_args.clear();
  job.command = {"python", "train.py", "--tensor-model-parallel-size", "2"};
  job.hostfile = parse_hostfile("/fsx/best.hostfile", "a\nb\n");
  job.nodes = 2;
  job.tasks_per_node = 1;
  const auto s = render_job_script(job);
  EXPECT_TRUE(contains(s, "COMMAND=(python train.py --tensor-model-parallel-size 2)"));
  EXPECT_TRUE(contains(s, "step \"${SRUN[@]}\" \"${COMMAND[@]}\""));
  EXPECT_TRUE(contains(s, "--distribution=arbitrary"));
  EXPECT_TRUE(contains(s, "#SBATCH --output=\"/fsx/meshbench/train-%j.out\""));
  EXPECT_FALSE(contains(s, "MESHBENCH="));
  expect_parses(s);
}

TEST(slurmJobScript, PercentInTheOutputDirectoryIsLiteral) {
  auto job = job_for(Platform::generic);
  job.output_dir = "/shared/100%/runs";
  const auto s = render_job_script(job);
  EXPECT_TRUE(contains(s, "#SBATCH --output=\"/shared/100%%/runs/bench-%j.out\""));
  EXPECT_TRUE(contains(s, "OUTPUT_DIR='/shared/100%/runs'"));
}

TEST(slurmJobScript, RejectsWhatCannotBeWrittenSafely) {
  auto job = job_for(Platform::generic);
  auto j = job;
  j.job_name = "two\nlines";
  expect_rejected(j, "--job-name");
  j = job;
  j.job_name = "";
  expect_rejected(j, "--job-name");
  j = job;
  j.output_dir = "/a\nb";
  expect_rejected(j, "--output-dir");
  j = job;
  j.output_dir = "relative/dir";
  expect_rejected(j, "--output-dir");
  j = job;
  j.output_dir = "/a\\b";
  expect_rejected(j, "backslash");
  j = job;
  j.nodes = 0;
  expect_rejected(j, "--nodes");
  j = job;
  j.tasks_per_node = 0;
  expect_rejected(j, "--gpus-per-node");
  j = job;
  j.partition = "gpu; id";
  expect_rejected(j, "--partition");
  j = job;
  j.time_limit = "1:00 $(id)";
  expect_rejected(j, "--time");
  j = job;
  j.container_mounts = "/fsx:/fsx";
  expect_rejected(j, "--container-image");
  j = job;
  j.run_args = {"--out", "x.h5"};
  expect_rejected(j, "--out");
  j = job;
  j.kind = JobKind::train;
  j.run_args.clear();
  expect_rejected(j, "--command");
  j = job;
  j.command = {"python"};
  expect_rejected(j, "--command");
  j = job;
  j.hostfile = parse_hostfile("/h", "a\nb\nc\n");
  j.nodes = 2;
  j.tasks_per_node = 1;
  expect_rejected(j, "3 node(s)");
  j = job;
  j.hostfile = parse_hostfile("/h", "a\na\n");
  j.nodes = 1;
  j.tasks_per_node = 8;
  expect_rejected(j, "2 task(s) per node");
}

JobSpec gate_job(Platform p = Platform::generic) {
  JobSpec job = job_for(p);
  job.kind = JobKind::gate;
  job.new_env = {"LD_LIBRARY_PATH=/opt/nccl-new/lib:$LD_LIBRARY_PATH"};
  job.history_dir = "/shared/gate/history";
  return job;
}

// The line that holds `part`, whole.
std::string line_with(const std::string& text, const std::string& part) {
  const auto at = text.find(part);
  if (at == std::string::npos) return {};
  const auto begin = text.rfind('\n', at) + 1;
  return text.substr(begin, text.find('\n', at) - begin);
}

// The steps that launch meshbench run, in script order, by the file each one writes.
std::vector<std::string> launches(const std::string& script) {
  std::vector<std::string> out;
  for (std::size_t at = 0; (at = script.find("\"$MESHBENCH\" run", at)) != std::string::npos; ++at) {
    const auto file = script.find("--out \"$run_dir/", at);
    if (file == std::string::npos) break;
    const auto begin = file + std::string("--out \"$run_dir/").size();
    out.push_back(script.substr(begin, script.find(".h5", begin) - begin));
  }
  return out;
}

TEST(slurmJobScript, GateLaunchesBaselineAndNewRunsAlternately) {
  auto job = gate_job();
  auto s = render_job_script(job);
  EXPECT_EQ(launches(s), (std::vector<std::string>{"base1", "new1", "base2", "new2", "base3"}));
  job.new_runs = 4;
  s = render_job_script(job);
  EXPECT_EQ(launches(s), (std::vector<std::string>{"base1", "new1", "base2", "new2", "base3", "new3", "base4", "new4", "base5"}));
  job.new_runs = 1;
  EXPECT_EQ(launches(render_job_script(job)), (std::vector<std::string>{"base1", "new1", "base2"}));
  expect_parses(s);
}

TEST(slurmJobScript, GateSetsTheCandidateEnvironmentOnTheNewRunsOnly) {
  auto job = gate_job();
  job.new_env.push_back("NCCL_NET_PLUGIN=${PLUGIN_DIR}/libnccl-net-new.so");
  const auto s = render_job_script(job);
  EXPECT_TRUE(contains(s,
                       "new_env() { NEW_ENV=(LD_LIBRARY_PATH=/opt/nccl-new/lib:\"${LD_LIBRARY_PATH:-}\" "
                       "NCCL_NET_PLUGIN=\"${PLUGIN_DIR:-}\"/libnccl-net-new.so); }\n"))
      << s;
  // Expanded after the environment file is sourced, before the first launch.
  EXPECT_LT(s.find("source \"$ENV_FILE\""), s.find("\nnew_env\n"));
  EXPECT_LT(s.find("\nnew_env\n"), s.find("base1.h5"));
  for (int i = 1; i <= 3; ++i) {
    const auto base = line_with(s, "\"$run_dir/base" + std::to_string(i) + ".h5\" ||");
    EXPECT_EQ(base, "step \"${SRUN[@]}\" \"$MESHBENCH\" run \"${RUN_ARGS[@]}\" --out \"$run_dir/base" + std::to_string(i) +
                        ".h5\" || die \"baseline run " + std::to_string(i) + " failed; nothing judged\"");
  }
  for (int i = 1; i <= 2; ++i) {
    const auto next = line_with(s, "\"$run_dir/new" + std::to_string(i) + ".h5\" ||");
    EXPECT_EQ(next.rfind("step env \"${NEW_ENV[@]}\" \"${SRUN[@]}\" \"$MESHBENCH\" run \"${RUN_ARGS[@]}\"", 0), 0U) << next;
  }
  std::size_t uses = 0;
  for (std::size_t at = 0; (at = s.find("${NEW_ENV[@]}", at)) != std::string::npos; ++at) ++uses;
  EXPECT_EQ(uses, 2U) << "the two new runs, nothing else";
  expect_parses(s);
}

TEST(slurmJobScript, GateJudgesWithCompareAndExitsWithItsStatus) {
  const auto s = render_job_script(gate_job(Platform::hyperpod));
  EXPECT_TRUE(contains(s, "HISTORY_DIR='/shared/gate/history'\n"));
  EXPECT_TRUE(contains(s, "#SBATCH --job-name=\"meshbench\"\n")) << "the name is the command's business";
  EXPECT_TRUE(contains(s, "#SBATCH --output=\"/fsx/meshbench/gate-%j.out\"\n"));
  EXPECT_TRUE(contains(s, "run_dir=\"$OUTPUT_DIR/gate-$SLURM_JOB_ID\"\n"));
  EXPECT_TRUE(contains(s, "SRUN_ONE=(\"${SRUN[@]}\" --nodes=1 --ntasks=1)"));
  EXPECT_TRUE(contains(s,
                       "judge=(\"${SRUN_ONE[@]}\" \"$MESHBENCH\" compare --interleaved \"$run_dir/base1.h5\" \"$run_dir/base2.h5\" "
                       "\"$run_dir/base3.h5\" -- \"$run_dir/new1.h5\" \"$run_dir/new2.h5\")\n"))
      << s;
  EXPECT_TRUE(contains(s, "  judge+=(--history \"$HISTORY_DIR\")\n"));
  EXPECT_TRUE(contains(s, "step \"${judge[@]}\" >>\"$run_dir/verdict.txt\" 2>&1 || status=$?\n"));
  EXPECT_TRUE(contains(s, "cat -- \"$run_dir/verdict.txt\"\n"));
  // The baselines join the history after the comparison; the job ends with compare's status.
  const auto judge = s.find("step \"${judge[@]}\"");
  const auto copy = s.find("cp -- \"$run_dir/base$i.h5\" \"$HISTORY_DIR/gate-$SLURM_JOB_ID-base$i.h5\"");
  ASSERT_NE(copy, std::string::npos);
  EXPECT_LT(s.rfind("base3.h5\" || die"), judge);
  EXPECT_LT(judge, copy);
  EXPECT_TRUE(contains(s, "for i in $(seq 1 3); do"));
  EXPECT_TRUE(s.ends_with("esac\njudged=yes\nexit \"$status\"\n")) << s;
  EXPECT_TRUE(contains(s, "trap '[[ $judged == yes ]] || exit 2' EXIT\n")) << "any other failure is 2, never 1";
  EXPECT_FALSE(contains(s, "results.h5"));
  expect_parses(s);
}

TEST(slurmJobScript, GateRunsTheDoctorFirstAndKeepsThePlacementOffCompare) {
  auto job = gate_job();
  job.doctor = true;
  job.hostfile = parse_hostfile("/shared/best.hostfile", "a\nb\n");
  job.tasks_per_node = 1;
  const auto s = render_job_script(job);
  EXPECT_LT(s.find("\"$MESHBENCH\" doctor"), s.find("base1.h5"));
  EXPECT_LT(s.find("SRUN_ONE=("), s.find("SRUN+=(--distribution=arbitrary")) << "compare's srun is one task, without the placement";
  EXPECT_TRUE(contains(s, "judge=(env -u SLURM_HOSTFILE \"${SRUN_ONE[@]}\" \"$MESHBENCH\" compare"));
  expect_parses(s);
}

TEST(slurmJobScript, EnvAssignmentsExpandOnlyVariables) {
  auto e = parse_env_assignment("LD_LIBRARY_PATH=/opt/a:$LD_LIBRARY_PATH:${X}y$ $(id)`id`");
  EXPECT_EQ(e.name, "LD_LIBRARY_PATH");
  ASSERT_EQ(e.value.size(), 5U);
  EXPECT_EQ(e.value[0].text, "/opt/a:");
  EXPECT_TRUE(e.value[1].variable);
  EXPECT_EQ(e.value[1].text, "LD_LIBRARY_PATH");
  EXPECT_EQ(e.value[2].text, ":");
  EXPECT_TRUE(e.value[3].variable);
  EXPECT_EQ(e.value[3].text, "X");
  EXPECT_FALSE(e.value[4].variable);
  EXPECT_EQ(e.value[4].text, "y$ $(id)`id`") << "anything but a variable is literal";
  EXPECT_TRUE(parse_env_assignment("EMPTY=").value.empty());
  for (const char* bad : {"NOEQUALS", "=x", "1A=x", "A-B=x", "A=${B:-c}", "A=${", "A=${}", "A B=c"}) {
    EXPECT_THROW((void)parse_env_assignment(bad), InputError) << bad;
  }
}

TEST(slurmJobScript, GateRefusesWhatItCannotJudge) {
  auto j = gate_job();
  j.new_env.clear();
  expect_rejected(j, "--new-env");
  for (int runs : {0, -1, kMaxNewRuns + 1}) {
    j = gate_job();
    j.new_runs = runs;
    expect_rejected(j, "--new-runs");
  }
  j = gate_job();
  j.history_dir.clear();
  expect_rejected(j, "--history");
  j = gate_job();
  j.history_dir = "relative/history";
  expect_rejected(j, "--history");
  j = gate_job();
  j.new_env = {"not an assignment"};
  expect_rejected(j, "--new-env");
  j = gate_job();
  j.io_dir = "/fsx/ckpt";
  expect_rejected(j, "--io");
  j = gate_job();
  j.run_args = {"--out=x.h5"};
  expect_rejected(j, "--out");
  j = gate_job();
  j.command = {"python"};
  expect_rejected(j, "--command");
  // Gate options on another kind of job.
  j = job_for(Platform::generic);
  j.new_env = {"A=b"};
  expect_rejected(j, "--job gate");
  j = job_for(Platform::generic);
  j.history_dir = "/h";
  expect_rejected(j, "--job gate");
  j = job_for(Platform::generic);
  j.new_runs = 4;
  expect_rejected(j, "--job gate");
}

TEST(slurmJobScript, PlatformNames) {
  EXPECT_EQ(parse_platform("hyperpod"), Platform::hyperpod);
  EXPECT_EQ(parse_platform("parallelcluster"), Platform::parallelcluster);
  EXPECT_EQ(parse_platform("generic"), Platform::generic);
  EXPECT_THROW(parse_platform("pcluster"), InputError);
}

}  // namespace
}  // namespace meshbench::slurm
