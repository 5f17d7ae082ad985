// `meshbench slurm` through the binary: files, exit statuses, and generated scripts executed
// with a recording srun stub.
#include <gtest/gtest.h>

#include <algorithm>

#include "slurm/quote.hpp"
#include "test_util.hpp"

namespace meshbench::slurm {
namespace {

using testing::contains;
using testing::meshbench;
using testing::read_file;
using testing::run;
using testing::ScratchDir;
using testing::write_file;
namespace fs = std::filesystem;

int lines(const std::string& text) { return static_cast<int>(std::count(text.begin(), text.end(), '\n')); }

// The one-line error contract: exit 2, one line naming the problem.
void expect_bad_input(const testing::Result& r, const std::string& mention) {
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_EQ(lines(r.output), 1) << r.output;
  EXPECT_TRUE(contains(r.output, mention)) << r.output;
}

TEST(slurmCommand, WritesTheScriptAndTheEnvFileBesideIt) {
  ScratchDir dir;
  const auto r = meshbench({"--platform", "hyperpod", "-o", dir / "job.sbatch", "--run-args", "--tp 2"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto script = read_file(dir / "job.sbatch");
  EXPECT_TRUE(contains(script, "#!/bin/bash\n"));
  EXPECT_TRUE(contains(script, "ENV_FILE=" + shell_quote(dir / "meshbench.env")));
  EXPECT_TRUE(fs::status(dir / "job.sbatch").permissions() ==
              (fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec));
  EXPECT_TRUE(contains(read_file(dir / "meshbench.env"), "FI_PROVIDER=efa\n"));
  EXPECT_TRUE(contains(r.output, "sbatch"));
  // Nothing else: no temporary file left beside them.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 2);
}

TEST(slurmCommand, RefusesToOverwriteWithoutForceAndKeepsTheReviewedEnvFile) {
  ScratchDir dir;
  ASSERT_EQ(meshbench({"--platform", "generic", "-o", dir / "job.sbatch"}).status, 0);
  write_file(dir / "job.sbatch", "mine\n");
  write_file(dir / "meshbench.env", "NCCL_PROTO=Simple\n");
  expect_bad_input(meshbench({"--platform", "generic", "-o", dir / "job.sbatch"}), "--force");
  EXPECT_EQ(read_file(dir / "job.sbatch"), "mine\n");
  const auto r = meshbench({"--platform", "generic", "-o", dir / "job.sbatch", "--force"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(read_file(dir / "job.sbatch"), "mine\n");
  EXPECT_EQ(read_file(dir / "meshbench.env"), "NCCL_PROTO=Simple\n") << "an existing env file is never replaced";
  EXPECT_TRUE(contains(r.output, "existing file kept"));
}

TEST(slurmCommand, EnvTemplateHasTheGuideSettingsAndParsesAsShell) {
  ScratchDir dir;
  const auto r = meshbench({"--print-env-template"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* line : {"FI_PROVIDER=efa\n", "FI_EFA_USE_DEVICE_RDMA=1\n", "NCCL_PROTO=LL128\n", "NCCL_BUFFSIZE=67108864\n",
                           "NCCL_P2P_NET_CHUNKSIZE=4194304\n", "NCCL_NET_GDR_LEVEL=PHB\n"}) {
    EXPECT_TRUE(contains(r.output, line)) << line;
  }
  EXPECT_TRUE(contains(r.output, "libfabric >= 1.18.0")) << "says when FI_EFA_USE_DEVICE_RDMA is unneeded";
  write_file(dir / "efa.env", r.output);
  const auto env = run({"bash", "-c", "set -a; source \"$0\"; set +a; env", dir / "efa.env"}, {"-i"});
  EXPECT_TRUE(contains(env.output, "NCCL_NET_GDR_LEVEL=PHB\n")) << env.output;
  EXPECT_TRUE(contains(env.output, "FI_PROVIDER=efa\n"));
  const auto local = meshbench({"--print-env-template", "--env-template", "local"});
  EXPECT_TRUE(contains(local.output, "OMPI_MCA_btl_tcp_if_include=eth0\n")) << local.output;
}

TEST(slurmCommand, HostfileSetsNodesAndTasksUnlessTheyDisagree) {
  ScratchDir dir;
  write_file(dir / "best.hostfile", "h1\nh1\nh1\nh2\nh2\nh2\n");
  auto r = meshbench({"--platform", "generic", "-o", dir / "a.sbatch", "--hostfile", dir / "best.hostfile"});
  ASSERT_EQ(r.status, 0) << r.output;
  const auto s = read_file(dir / "a.sbatch");
  EXPECT_TRUE(contains(s, "#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=3\n")) << s;
  EXPECT_TRUE(contains(s, "#SBATCH --nodelist=h1,h2\n"));
  expect_bad_input(meshbench({"--platform", "generic", "-o", dir / "b.sbatch", "--hostfile", dir / "best.hostfile", "--nodes", "4"}),
                   "--nodes is 4");
  expect_bad_input(meshbench({"--platform", "generic", "-o", dir / "c.sbatch", "--hostfile", dir / "missing"}), "hostfile");
  EXPECT_FALSE(fs::exists(dir / "b.sbatch"));
}

TEST(slurmCommand, BadInputIsOneLineExitTwoAndWritesNothing) {
  ScratchDir dir;
  const std::string out = dir / "job.sbatch";
  expect_bad_input(meshbench({"-o", out}), "--platform");
  expect_bad_input(meshbench({"--platform", "pcluster", "-o", out}), "hyperpod|parallelcluster|generic");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--job-name", "a\nb"}), "--job-name");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--output-dir", "/x\ny"}), "--output-dir");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--nodes", "0"}), "--nodes");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--nodes", "two"}), "nodes");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--run-args", "--tp '2"}), "--run-args");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--run-args", "--out x.h5"}), "--out");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--job", "train"}), "--command");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--job", "serve"}), "--job");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--gpu-gres", "maybe"}), "--gpu-gres");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--env-template", "ib"}), "efa|local");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--container-mounts", "/a:/a"}), "--container-image");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--doctor-args=-v"}), "needs --doctor");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--partition", "a b"}), "--partition");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--bogus"}), "bogus");
  expect_bad_input(meshbench({"--platform", "generic", "-o", dir / "no-such-dir/job.sbatch"}), "cannot write");
  EXPECT_TRUE(fs::is_empty(dir.path())) << "nothing written on bad input";
}

TEST(slurmCommand, StdoutOutputWritesNoFile) {
  ScratchDir dir;
  const auto r = meshbench({"--platform", "parallelcluster", "-o", "-", "--gpus-per-node", "4"}, dir.path().string());
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "#SBATCH --gpus-per-node=4\n"));
  EXPECT_TRUE(contains(r.output, "--print-env-template")) << "says how to write the missing env file";
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(slurmCommand, GenericDefaultsToARunsDirectoryWhereItIsGenerated) {
  ScratchDir dir;
  ASSERT_EQ(meshbench({"--platform", "generic"}, dir.path().string()).status, 0);
  const auto s = read_file(dir / "meshbench-bench.sbatch");
  EXPECT_TRUE(contains(s, "OUTPUT_DIR=" + shell_quote(dir / "meshbench-runs") + "\n")) << s;
}

// A recording stand-in for srun: each call writes its argv (NUL-separated), SLURM_HOSTFILE and a
// variable from the env file into $STUB_RECORD/{call,hostfile,var}.N, and runs nothing.
void write_srun_stub(const ScratchDir& dir) {
  fs::create_directories(dir.path() / "stub");
  fs::create_directories(dir.path() / "record");
  write_file(dir.path() / "stub" / "srun",
             "#!/bin/bash\n"
             "n=$(find \"$STUB_RECORD\" -name 'call.*' | wc -l)\n"
             "printf '%s\\0' \"$@\" >\"$STUB_RECORD/call.$n\"\n"
             "printf '%s' \"${SLURM_HOSTFILE:-}\" >\"$STUB_RECORD/hostfile.$n\"\n"
             "printf '%s' \"${MB_TEST_VAR:-}\" >\"$STUB_RECORD/var.$n\"\n");
  fs::permissions(dir.path() / "stub" / "srun", fs::perms::owner_all);
  // sbatch too, in case a script ever tried to submit itself.
  fs::copy_file(dir.path() / "stub" / "srun", dir.path() / "stub" / "sbatch");
}

// Any file called PWNED anywhere under `root`: what every injection attempt below would create.
bool pwned(const fs::path& root) {
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.path().filename() == "PWNED") return true;
  }
  return false;
}

testing::Result execute(const ScratchDir& dir, const std::string& script) {
  return run({"bash", script},
             {"PATH=" + (dir / "stub") + ":" + std::getenv("PATH"), "STUB_RECORD=" + (dir / "record"), "SLURM_JOB_ID=42",
              "SLURM_JOB_NODELIST=n[0-1]"},
             dir.path().string());
}

TEST(slurmCommand, HostileValuesAreDataNeverCode) {
  ScratchDir dir;
  write_srun_stub(dir);
  // Every value tries to run "touch PWNED" (relative: the script runs in `dir`).
  const std::string job_name = "mb $(touch PWNED) `touch PWNED`; touch PWNED 'q' \"dq\" #c \\";
  const std::string out_dir = dir / "out $(touch PWNED) `touch PWNED`; touch PWNED 'q' \"dq\" #h 50%";
  const std::string env_file = dir / "env $(touch PWNED)\n`touch PWNED`;'.env";
  const std::string hostfile = dir / "hosts $(touch PWNED);'\".txt";
  const std::string image = "img$(touch PWNED);`touch PWNED`'\"";
  const std::string mounts = "/a:/b;touch PWNED";
  const std::string binary = "/opt/mesh bench/$(touch PWNED)/meshbench";
  const std::string run_args = "--tp 2 '$(touch PWNED)' '`touch PWNED`' ';' 'touch PWNED' \"a'b\" 'new\nline' '$HOME'";
  write_file(env_file, "MB_TEST_VAR='env ok'\n");
  write_file(hostfile, "n0\nn1 # rank 1\nn0\n\nn1\n");
  const std::string script = dir / "job $(touch PWNED).sbatch";

  auto r = meshbench({"--platform",
                      "hyperpod",
                      "-o",
                      script,
                      "--job-name",
                      job_name,
                      "--output-dir",
                      out_dir,
                      "--env-file",
                      env_file,
                      "--hostfile",
                      hostfile,
                      "--container-image",
                      image,
                      "--container-mounts",
                      mounts,
                      "--meshbench",
                      binary,
                      "--run-args",
                      run_args,
                      "--doctor",
                      "--doctor-args",
                      "--format 'json;touch PWNED'"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(run({"bash", "-n", script}).status, 0);
  EXPECT_TRUE(contains(read_file(script), "#SBATCH --job-name=\"mb $(touch PWNED) `touch PWNED`; touch PWNED 'q' \\\"dq\\\" #c \\\\\"\n"));

  r = execute(dir, script);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(pwned(dir.path())) << "a value ran as a command";

  const std::string run_dir = out_dir + "/bench-42";
  const std::vector<std::string> srun_prefix = {"--mpi=pmix", "--auto-resume=1", "--container-image=" + image,
                                                "--container-mounts=" + mounts};
  auto doctor = srun_prefix;
  doctor.insert(doctor.end(), {binary, "doctor", "--format", "json;touch PWNED"});
  EXPECT_EQ(testing::split_nul(read_file(dir / "record/call.0")), doctor);
  auto bench = srun_prefix;
  bench.insert(bench.end(), {"--distribution=arbitrary", "--ntasks=4", binary, "run", "--tp", "2", "$(touch PWNED)", "`touch PWNED`", ";",
                             "touch PWNED", "a'b", "new\nline", "$HOME", "--out", run_dir + "/results.h5"});
  EXPECT_EQ(testing::split_nul(read_file(dir / "record/call.1")), bench);
  EXPECT_FALSE(fs::exists(dir / "record/call.2")) << "two steps: doctor, run";

  // The env file reached the tasks' environment; the placement only the run step.
  EXPECT_EQ(read_file(dir / "record/var.0"), "env ok");
  EXPECT_EQ(read_file(dir / "record/var.1"), "env ok");
  EXPECT_EQ(read_file(dir / "record/hostfile.0"), "");
  EXPECT_EQ(read_file(dir / "record/hostfile.1"), run_dir + "/hostfile");
  EXPECT_EQ(read_file(run_dir + "/hostfile"), "n0\nn1\nn0\nn1\n");
  // The run directory keeps what the job ran with.
  EXPECT_EQ(read_file(run_dir + "/job.env"), "MB_TEST_VAR='env ok'\n");
  EXPECT_EQ(read_file(run_dir + "/job.sbatch"), read_file(script));
  EXPECT_EQ(lines(read_file(run_dir + "/steps.txt")), 2);
}

TEST(slurmCommand, HostileTrainCommandIsPassedWordForWord) {
  ScratchDir dir;
  write_srun_stub(dir);
  write_file(dir / "hf", "a\nb\n");
  write_file(dir / "job.env", "MB_TEST_VAR=1\n");
  const std::string script = dir / "train.sbatch";
  auto r = meshbench({"--platform", "parallelcluster", "--job", "train", "-o", script, "--output-dir", dir / "runs", "--env-file",
                      dir / "job.env", "--hostfile", dir / "hf", "--command",
                      "python train.py --name \"$(touch PWNED)\" ';' touch PWNED '|' tee PWNED"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = execute(dir, script);
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(pwned(dir.path()));
  EXPECT_EQ(testing::split_nul(read_file(dir / "record/call.0")),
            (std::vector<std::string>{"--mpi=pmix", "--distribution=arbitrary", "--ntasks=2", "python", "train.py", "--name",
                                      "$(touch PWNED)", ";", "touch", "PWNED", "|", "tee", "PWNED"}));
  EXPECT_EQ(read_file(dir / "runs/train-42/hostfile"), "a\nb\n");
}

TEST(slurmCommand, JobStopsWhenTheEnvFileOrHostfileIsMissingOrChanged) {
  ScratchDir dir;
  write_srun_stub(dir);
  write_file(dir / "hf", "a\nb\n");
  write_file(dir / "job.env", "X=1\n");
  const std::string script = dir / "job.sbatch";
  ASSERT_EQ(meshbench({"--platform", "generic", "-o", script, "--output-dir", dir / "runs", "--env-file", dir / "job.env", "--hostfile",
                       dir / "hf"})
                .status,
            0);
  write_file(dir / "hf", "a\nb\na\n");
  auto r = execute(dir, script);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "no longer has 2 tasks")) << r.output;
  fs::remove(dir / "job.env");
  r = execute(dir, script);
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(contains(r.output, "not readable")) << r.output;
  EXPECT_FALSE(fs::exists(dir / "record/call.0")) << "srun never ran";
  // Run outside Slurm, the script says so instead of writing anywhere.
  r = run({"bash", script}, {"-u", "SLURM_JOB_ID", "PATH=" + (dir / "stub") + ":" + std::getenv("PATH")});
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(contains(r.output, "submit this script with sbatch")) << r.output;
}

}  // namespace
}  // namespace meshbench::slurm
