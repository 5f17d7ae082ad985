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
// variable from the env file into $STUB_RECORD/{call,hostfile,var}.N, and runs nothing. It creates
// the file after --out (empty), fails call number $STUB_FAIL_CALL, and stands in for compare: prints
// a verdict line and exits with $STUB_COMPARE_STATUS.
void write_srun_stub(const ScratchDir& dir) {
  fs::create_directories(dir.path() / "stub");
  fs::create_directories(dir.path() / "record");
  write_file(dir.path() / "stub" / "srun",
             "#!/bin/bash\n"
             "n=$(find \"$STUB_RECORD\" -name 'call.*' | wc -l)\n"
             "printf '%s\\0' \"$@\" >\"$STUB_RECORD/call.$n\"\n"
             "printf '%s' \"${SLURM_HOSTFILE:-}\" >\"$STUB_RECORD/hostfile.$n\"\n"
             "printf '%s' \"${MB_TEST_VAR:-}\" >\"$STUB_RECORD/var.$n\"\n"
             "[[ ${STUB_FAIL_CALL:-} != \"$n\" ]] || exit 1\n"
             "prev=\n"
             "for a in \"$@\"; do\n"
             "  [[ $prev != --out ]] || : >\"$a\"\n"
             "  if [[ $a == compare ]]; then echo 'verdict: stub'; exit \"${STUB_COMPARE_STATUS:-0}\"; fi\n"
             "  prev=$a\n"
             "done\n");
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

testing::Result execute(const ScratchDir& dir, const std::string& script, const std::vector<std::string>& more_env = {}) {
  std::vector<std::string> env = {"PATH=" + (dir / "stub") + ":" + std::getenv("PATH"), "STUB_RECORD=" + (dir / "record"),
                                  "SLURM_JOB_ID=42", "SLURM_JOB_NODELIST=n[0-1]"};
  env.insert(env.end(), more_env.begin(), more_env.end());
  return run({"bash", script}, env, dir.path().string());
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

// The .h5 files directly in `folder`, by name.
std::vector<std::string> h5_files(const fs::path& folder) {
  std::vector<std::string> out;
  if (!fs::is_directory(folder)) return out;
  for (const auto& e : fs::directory_iterator(folder)) {
    if (e.path().extension() == ".h5") out.push_back(e.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(slurmCommand, GateJobAlternatesJudgesAndGrowsTheHistory) {
  ScratchDir dir;
  write_srun_stub(dir);
  write_file(dir / "job.env", "MB_TEST_VAR='env ok'\n");
  const std::string script = dir / "gate.sbatch";
  const std::string history = dir / "history $(touch PWNED)";
  auto r = meshbench({"--platform", "generic", "--job", "gate", "-o", script, "--output-dir", dir / "runs", "--env-file", dir / "job.env",
                      "--meshbench", "/opt/mb/meshbench", "--run-args", "--tp 2 --rounds 3", "--history", history, "--new-env",
                      "MB_TEST_VAR=new $(touch PWNED):$MB_TEST_VAR", "--doctor"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "gate job for generic, 2 node(s) x 8 task(s), 3 baseline and 2 new run(s)")) << r.output;
  EXPECT_TRUE(contains(read_file(script), "#SBATCH --job-name=\"meshbench-gate\"\n"));
  EXPECT_EQ(run({"bash", "-n", script}).status, 0);

  // Job 42, an empty history: judged on its own baselines, which then start the history.
  r = execute(dir, script, {"STUB_COMPARE_STATUS=3"});
  EXPECT_EQ(r.status, 3) << r.output;
  EXPECT_FALSE(pwned(dir.path())) << "a value ran as a command";
  const std::string run_dir = dir / "runs/gate-42";
  const std::vector<std::string> srun = {"--mpi=pmix"};
  auto expect_call = [&](int n, const std::vector<std::string>& tail) {
    auto want = srun;
    want.insert(want.end(), tail.begin(), tail.end());
    EXPECT_EQ(testing::split_nul(read_file(dir / ("record/call." + std::to_string(n)))), want) << "call " << n;
  };
  expect_call(0, {"/opt/mb/meshbench", "doctor"});
  const char* order[] = {"base1", "new1", "base2", "new2", "base3"};
  for (int i = 0; i < 5; ++i) {
    expect_call(i + 1, {"/opt/mb/meshbench", "run", "--tp", "2", "--rounds", "3", "--out", run_dir + "/" + order[i] + ".h5"});
    const bool is_new = std::string(order[i]).starts_with("new");
    EXPECT_EQ(read_file(dir / ("record/var." + std::to_string(i + 1))), is_new ? "new $(touch PWNED):env ok" : "env ok") << order[i];
  }
  expect_call(6, {"--nodes=1", "--ntasks=1", "/opt/mb/meshbench", "compare", "--interleaved", run_dir + "/base1.h5", run_dir + "/base2.h5",
                  run_dir + "/base3.h5", "--", run_dir + "/new1.h5", run_dir + "/new2.h5"});
  EXPECT_FALSE(fs::exists(dir / "record/call.7"));
  const auto verdict = read_file(run_dir + "/verdict.txt");
  EXPECT_TRUE(contains(verdict, "holds 0 run(s), fewer than the 5 --history needs")) << verdict;
  EXPECT_TRUE(contains(verdict, "verdict: stub\n"));
  EXPECT_TRUE(contains(r.output, "verdict: stub\n")) << "the verdict is printed";
  EXPECT_EQ(h5_files(history), (std::vector<std::string>{"gate-42-base1.h5", "gate-42-base2.h5", "gate-42-base3.h5"}));
  EXPECT_EQ(lines(read_file(run_dir + "/steps.txt")), 7);

  // Job 43 (a regression) and 44 (clean): once the history holds 5 runs, compare gets it.
  for (const auto& [job_id, status] : {std::pair{43, 1}, std::pair{44, 0}}) {
    fs::remove_all(dir / "record");
    fs::create_directories(dir / "record");
    r = execute(dir, script, {"SLURM_JOB_ID=" + std::to_string(job_id), "STUB_COMPARE_STATUS=" + std::to_string(status)});
    EXPECT_EQ(r.status, status) << r.output;
    const auto judge = testing::split_nul(read_file(dir / "record/call.6"));
    const bool with_history = std::find(judge.begin(), judge.end(), "--history") != judge.end();
    EXPECT_EQ(with_history, job_id == 44) << job_id;
    if (with_history) {
      EXPECT_EQ(judge.back(), history);
    }
  }
  EXPECT_EQ(h5_files(history).size(), 9U);
  EXPECT_FALSE(pwned(dir.path()));
}

TEST(slurmCommand, GateJobExitsTwoWithoutAVerdictAndKeepsTheHistory) {
  ScratchDir dir;
  write_srun_stub(dir);
  write_file(dir / "job.env", "X=1\n");
  const std::string script = dir / "gate.sbatch";
  ASSERT_EQ(meshbench({"--platform", "hyperpod", "--job", "gate", "-o", script, "--output-dir", dir / "runs", "--env-file", dir / "job.env",
                       "--history", dir / "history", "--new-env", "LD_LIBRARY_PATH=/opt/nccl-new/lib:$LD_LIBRARY_PATH", "--new-runs", "1"})
                .status,
            0);
  // The new run fails: no comparison, exit 2 (a failed srun's 1 would read as a regression).
  auto r = execute(dir, script, {"STUB_FAIL_CALL=1"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "new run 1 failed")) << r.output;
  EXPECT_FALSE(fs::exists(dir / "record/call.2")) << "nothing after the failed run";
  EXPECT_TRUE(h5_files(dir / "history").empty());
  // compare refuses the runs (exit 2): the history stays as it was.
  fs::remove_all(dir / "record");
  fs::create_directories(dir / "record");
  r = execute(dir, script, {"STUB_COMPARE_STATUS=2"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(fs::exists(dir / "record/call.2")) << "base1 new1 base2, then compare";
  EXPECT_TRUE(contains(r.output, "left as it was")) << r.output;
  EXPECT_TRUE(h5_files(dir / "history").empty());
  // Outside Slurm: 2 as well, never 1.
  r = run({"bash", script}, {"-u", "SLURM_JOB_ID", "PATH=" + (dir / "stub") + ":" + std::getenv("PATH")});
  EXPECT_EQ(r.status, 2) << r.output;
}

TEST(slurmCommand, GateBadCombinationsAreOneLineExitTwo) {
  ScratchDir dir;
  const std::string out = dir / "gate.sbatch";
  const std::vector<std::string> gate = {"--platform", "generic", "-o", out, "--job", "gate", "--history", "/fsx/gate/history"};
  auto with = [&](std::vector<std::string> more) {
    auto args = gate;
    args.insert(args.end(), more.begin(), more.end());
    return meshbench(args);
  };
  expect_bad_input(with({}), "--new-env");
  expect_bad_input(with({"--new-env", "A=b", "--new-runs", "0"}), "--new-runs");
  expect_bad_input(with({"--new-env", "A=b", "--new-runs", "17"}), "--new-runs");
  expect_bad_input(with({"--new-env", "/opt/nccl-new/lib"}), "NAME=VALUE");
  expect_bad_input(with({"--new-env", "A=${B:-c}"}), "${...}");
  expect_bad_input(with({"--new-env", "A=b", "--io", "/fsx/ckpt"}), "--io");
  expect_bad_input(with({"--new-env", "A=b", "--run-args", "--out x.h5"}), "--out");
  expect_bad_input(with({"--new-env", "A=b", "--doctor-args", "-v"}), "needs --doctor");
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--job", "gate", "--new-env", "A=b"}), "--history");
  for (const auto& option : std::vector<std::vector<std::string>>{{"--new-env", "A=b"}, {"--new-runs", "4"}, {"--history", "/h"}}) {
    auto args = std::vector<std::string>{"--platform", "generic", "-o", out};
    args.insert(args.end(), option.begin(), option.end());
    expect_bad_input(meshbench(args), "belong to --job gate");
  }
  expect_bad_input(meshbench({"--platform", "generic", "-o", out, "--job", "train", "--command", "x", "--history", "/h"}), "--job gate");
  EXPECT_TRUE(fs::is_empty(dir.path())) << "nothing written on bad input";
}

}  // namespace
}  // namespace meshbench::slurm
