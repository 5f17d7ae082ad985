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
  auto expect_rejected = [](const JobSpec& job, const std::string& mention) {
    try {
      (void)render_job_script(job);
      FAIL() << "accepted; expected an error mentioning " << mention;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(mention), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line";
    }
  };
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

TEST(slurmJobScript, PlatformNames) {
  EXPECT_EQ(parse_platform("hyperpod"), Platform::hyperpod);
  EXPECT_EQ(parse_platform("parallelcluster"), Platform::parallelcluster);
  EXPECT_EQ(parse_platform("generic"), Platform::generic);
  EXPECT_THROW(parse_platform("pcluster"), InputError);
}

}  // namespace
}  // namespace meshbench::slurm
