#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/import/nccl_tests_log.hpp"
#include "import_fixture.hpp"
#include "tests/unit/input_error_text.hpp"

namespace meshbench::analysis {
namespace {

using test_import::nccl_tests;
using test_import::of_timing;
using test_support::error_of;

ImportedLog from_text(const std::string& text, const ImportOptions& options = {}) {
  std::istringstream in(text);
  return parse_nccl_tests_log(in, "log.txt", options);
}

TEST(ImportNcclTests, CurrentFormatGivesEveryRowBothTimingsAndTheProvenance) {
  const auto log = nccl_tests("all_reduce_perf.log");
  EXPECT_EQ(log.tool, "nccl-tests");
  EXPECT_EQ(log.program, "all_reduce_perf");
  EXPECT_EQ(log.runs, 1);
  ASSERT_EQ(log.ranks, 8);
  ASSERT_EQ(log.hosts.size(), 8u);
  EXPECT_EQ(log.hosts[3], "gpu-a1");
  EXPECT_EQ(log.hosts[4], "gpu-a2");
  EXPECT_EQ(log.devices[7], "NVIDIA H100 80GB HBM3");
  const std::vector<std::pair<std::string, std::string>> versions = {{"nccl-tests", "2.19.6"}, {"nccl", "2.28.3"}, {"cuda", "12.9"}};
  EXPECT_EQ(log.versions, versions);
  // 8 B to 128 MiB in steps of 2: 25 sizes, each out-of-place and in-place.
  const auto out = of_timing(log, "batched"), in = of_timing(log, "batched_in_place");
  ASSERT_EQ(out.size(), 25u);
  ASSERT_EQ(in.size(), 25u);
  EXPECT_EQ(out.front().bytes, 8u);
  EXPECT_EQ(out.back().bytes, 128u << 20);
  EXPECT_EQ(out.front().op, "all_reduce");
  EXPECT_EQ(out.front().dtype, "float32");
  EXPECT_DOUBLE_EQ(out.front().time_us, 21.68);  // the first row's out-of-place time as printed
  EXPECT_DOUBLE_EQ(in.front().time_us, 22.31);
  EXPECT_EQ(out.front().wrong, 0);
  EXPECT_EQ(out.front().iters, 20);
  EXPECT_EQ(out.front().warmup, 5);
  EXPECT_EQ(out.front().line, 19);
  EXPECT_FALSE(out.front().min_us.has_value());
}

TEST(ImportNcclTests, ErrorColumnHoldingNotApplicableIsUnchecked) {
  const auto log = nccl_tests("no_check.log");
  ASSERT_FALSE(log.points.empty());
  for (const auto& p : log.points) EXPECT_EQ(p.wrong, -1) << p.bytes;
}

TEST(ImportNcclTests, LegacyFormatWithoutRootAndWithAnErrorColumnNamesItsOpByTheFileName) {
  const auto log = nccl_tests("all_reduce_perf.legacy.log");
  EXPECT_TRUE(log.program.empty());
  ASSERT_EQ(log.ranks, 16);
  EXPECT_EQ(log.hosts[8], "node02");
  EXPECT_EQ(log.devices[0], "NVIDIA A100-SXM4-40GB");
  const auto out = of_timing(log, "batched");
  ASSERT_EQ(out.size(), 18u);  // 8 B .. 1 MiB
  EXPECT_EQ(out.front().op, "all_reduce");
  EXPECT_EQ(out.front().wrong, 0);  // "0e+00": no error
}

TEST(ImportNcclTests, LegacyRowsWithAnErrorAreAtLeastOneWrongElement) {
  const std::string text =
      "# nThread 1 nGpus 2 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#   Rank  0 Pid  1 on h device  0 [0x18] GPU\n#   Rank  1 Pid  1 on h device  1 [0x28] GPU\n"
      "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
      "           8             2   float     sum    10.00    0.00    0.00  2e-01    10.00    0.00    0.00  0e+00\n"
      "          16             4   float     sum    10.00    0.00    0.00    N/A    10.00    0.00    0.00  0e+00\n";
  const auto log = from_text(text, test_import::with_op("all_reduce"));
  ASSERT_EQ(log.points.size(), 4u);
  EXPECT_EQ(log.points[0].wrong, 1);
  EXPECT_EQ(log.points[1].wrong, 0);
  EXPECT_EQ(log.points[2].wrong, -1);
}

TEST(ImportNcclTests, ThreadsPerProcessCountEveryThreadsDevices) {
  const auto log = nccl_tests("threads.log");  // nThread 2 nGpus 4 on one host
  EXPECT_EQ(log.ranks, 8);
  EXPECT_EQ(log.points.front().op, "reduce_scatter");
}

TEST(ImportNcclTests, PerIterationColumnsGiveTheSpreadAndTimestampsTheStart) {
  const auto log = nccl_tests("per_iteration.log");
  const auto out = of_timing(log, "batched");
  ASSERT_EQ(out.size(), 7u);  // 1 KiB .. 64 KiB
  EXPECT_EQ(out.front().op, "all_to_all");
  EXPECT_DOUBLE_EQ(out.front().time_us, 21.86);
  ASSERT_TRUE(out.front().min_us && out.front().max_us && out.front().p99_us);
  EXPECT_DOUBLE_EQ(*out.front().min_us, 20.33);
  EXPECT_DOUBLE_EQ(*out.front().max_us, 26.46);
  EXPECT_DOUBLE_EQ(*out.front().p99_us, 25.80);
  EXPECT_EQ(log.started_at, "2026-11-20T10:15:01");
}

TEST(ImportNcclTests, AppendedRunsAreNumberedInOrder) {
  const auto log = nccl_tests("appended.log");
  EXPECT_EQ(log.runs, 3);
  int first = 0, second = 0, third = 0;
  for (const auto& p : log.points) {
    (p.run == 0 ? first : p.run == 1 ? second : third) += 1;
    if (p.run == 2) EXPECT_EQ(p.op, "all_gather");
    else EXPECT_EQ(p.op, "all_reduce");
  }
  EXPECT_EQ(first, 22);  // 8 B .. 8 KiB, both timings
  EXPECT_EQ(second, 22);
  EXPECT_EQ(third, 16);  // 64 B .. 8 KiB
}

TEST(ImportNcclTests, JsonOfDashJ) {
  const auto log = nccl_tests("all_reduce.json");
  EXPECT_EQ(log.program, "./build/all_reduce_perf");
  EXPECT_EQ(log.ranks, 8);
  EXPECT_EQ(log.hosts[5], "gpu-a2");
  EXPECT_EQ(log.started_at, "2026-11-20T10:15:00");
  EXPECT_NE(log.command_line.find("-J run.json"), std::string::npos);
  const std::vector<std::pair<std::string, std::string>> versions = {{"nccl", "2.28.3"}};
  EXPECT_EQ(log.versions, versions);
  // The allow-list keeps NCCL_ and FI_ variables and drops the credential and HOME.
  const results::Environment env = {{"FI_PROVIDER", "efa"}, {"NCCL_DEBUG", "INFO"}, {"NCCL_SOCKET_IFNAME", "eth0"}};
  EXPECT_EQ(log.environment, env);
  const auto out = of_timing(log, "batched");
  ASSERT_EQ(out.size(), 18u);
  EXPECT_EQ(out.back().bytes, 1u << 20);
  EXPECT_EQ(out.back().wrong, 0);
  EXPECT_GT(out.back().time_us, 0);
}

TEST(ImportNcclTests, NcclVersionCodesOfBothEras) {
  // NCCL_VERSION_CODE is X*1000+Y*100+Z before 2.9 and X*10000+Y*100+Z since.
  const std::string table =
      "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20 validation: 1\n"
      "#  Rank  0 Group  0 Pid  1 on h device  0 [0000:18:00] GPU\n"
      "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
      "           8             2     float     sum      -1    21.68    0.00    0.00       0    22.31    0.00    0.00       0\n";
  const auto old =
      from_text("# nccl-tests version 2.0.0 nccl-headers=2708 nccl-library=2708\n" + table, test_import::with_op("all_reduce"));
  const auto now =
      from_text("# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803\n" + table, test_import::with_op("all_reduce"));
  EXPECT_EQ(old.versions.back(), (std::pair<std::string, std::string>("nccl", "2.7.8")));
  EXPECT_EQ(now.versions.back(), (std::pair<std::string, std::string>("nccl", "2.28.3")));
}

TEST(ImportNcclTests, Refusals) {
  // Each names its file and line, and the way out.
  EXPECT_EQ(error_of([] { nccl_tests("bad_broadcast.log"); }),
            "bad_broadcast.log:2: broadcast_perf measures a collective meshbench does not; import logs of all_reduce_perf, "
            "all_gather_perf, reduce_scatter_perf, alltoall_perf or sendrecv_perf");
  EXPECT_EQ(error_of([] { nccl_tests("bad_two_redops.log"); }).substr(0, 60),
            "bad_two_redops.log:23: a second reduction 'prod' after 'sum'");
  EXPECT_NE(
      error_of([] { nccl_tests("bad_other_shape.log"); }).find("bad_other_shape.log:30: this run (4 ranks on gpu-a1) is of another shape"),
      std::string::npos);
  EXPECT_EQ(error_of([] { nccl_tests("bad_cut_row.log"); }).substr(0, 69),
            "bad_cut_row.log:21: a result row of 6 fields where the column header ");
  EXPECT_EQ(error_of([] { nccl_tests("bad_cut.json"); }).substr(0, 33), "bad_cut.json:1: not complete JSON");
  EXPECT_EQ(error_of([] { nccl_tests("all_reduce_perf.log", test_import::with_op("all_gather")); }),
            "all_reduce_perf.log:2: the log is of all_reduce_perf but --op says all_gather; drop --op");
  const std::string osu = error_of([] {
    std::ifstream in(test_import::fixture("osu/allreduce.log"));
    parse_nccl_tests_log(in, "allreduce.log");
  });
  EXPECT_EQ(osu, "allreduce.log:2: this is an OSU micro-benchmarks log; import it with 'meshbench import osu'");
  const std::string csv = error_of([] {
    std::ifstream in(test_import::fixture("unknown_format.csv"));
    parse_nccl_tests_log(in, "unknown_format.csv");
  });
  EXPECT_EQ(csv.substr(0, 69), "unknown_format.csv:1: unrecognised line 'op,bytes,time_us,busbw_gbps'");
  EXPECT_EQ(error_of([] { from_text(""); }).substr(0, 42), "log.txt:1: no nccl-tests result table in 0");
  // A table whose collective nothing names.
  EXPECT_NE(
      error_of([] {
        from_text(
            "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
            "           8             2     float     sum      -1    21.68    0.00    0.00       0    22.31    0.00    0.00       0\n");
      }).find("log.txt:2: the log does not name its collective"),
      std::string::npos);
}

TEST(ImportNcclTests, OtherProgramsOutputIsSkippedOnlyWhereItIsTheLaunchersOrNccls) {
  std::ostringstream text;
  {
    std::ifstream in(test_import::fixture("nccl-tests/no_check.log"));
    text << in.rdbuf();
  }
  const std::string launcher =
      "--------------------------------------------------------------------------\n"
      "WARNING: There was an error initializing an OpenFabrics device.\n"
      "--------------------------------------------------------------------------\n"
      "srun: job 42 queued and waiting for resources\n"
      "[gpu-a1:41000] 1 more process has sent help message help-mpi-btl-openib.txt\n"
      "gpu-a2:41001:41001 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.2<0>\n";
  const auto plain = from_text(text.str());
  const auto mixed = from_text(launcher + text.str());
  EXPECT_EQ(mixed.points.size(), plain.points.size());
  EXPECT_EQ(mixed.skipped, 0);
  // Any other line is skipped and counted; --strict refuses it.
  const std::string other = "mpirun was unable to launch the specified application\n" + text.str();
  const auto lenient = from_text(other);
  EXPECT_EQ(lenient.points.size(), plain.points.size());
  EXPECT_EQ(lenient.skipped, 1);
  ImportOptions strict;
  strict.strict = true;
  EXPECT_EQ(error_of([&] { from_text(other, strict); }).substr(0, 36), "log.txt:1: unrecognised line 'mpirun");
}

// A run as people paste it: a prompt and the command, no "# Collective test starting" line.
const std::string kPasted =
    "user@gpu-a1:~/nccl-tests$ mpirun -np 2 -x NCCL_DEBUG=WARN ./build/alltoall_perf_mpi -b 8 -e 16 -f 2 -g 1\n"
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
    "#  Rank  0 Group  0 Pid  1 on gpu-a1 device  0 [0000:19:00] NVIDIA H100 80GB HBM3\n"
    "#  Rank  1 Group  0 Pid  2 on gpu-a1 device  1 [0000:3b:00] NVIDIA H100 80GB HBM3\n"
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
    "           8             2     float    none      -1    10.00    0.00    0.00      0    10.00    0.00    0.00      0\n"
    "gpu-a1: Test CUDA failure common.cu:389 'an illegal memory access was encountered'\n"
    "          16             4     float    none      -1    11.00    0.00    0.00      0    11.00    0.00    0.00      0\n"
    "# Out of bounds values : 0 OK\n";

TEST(ImportNcclTests, ACommandLineInThePasteNamesTheCollective) {
  const auto log = from_text(kPasted);
  EXPECT_EQ(log.program, "alltoall_perf");  // NAME_SUFFIX=_mpi left off
  ASSERT_EQ(log.points.size(), 4u);
  EXPECT_EQ(log.points.front().op, "all_to_all");
  EXPECT_EQ(log.points.back().bytes, 16u);
  EXPECT_EQ(log.skipped, 2);  // the prompt's line, and the line inside the table that is no row
  ASSERT_EQ(log.skipped_first.size(), 2u);
  EXPECT_EQ(log.skipped_first[0].first, 1);
  EXPECT_EQ(log.skipped_first[1].first, 7);
  // --op still wins over a command line (it names what the user knows).
  EXPECT_EQ(from_text(kPasted, test_import::with_op("all_gather")).points.front().op, "all_gather");
}

// What NCCL ran with: the variables the launch command sets for the benchmark, and those NCCL's
// own lines say it read (which win); the provenance's environment, allow-listed.
TEST(ImportNcclTests, TheEnvironmentComesFromTheCommandAndNcclsOwnLines) {
  using Env = results::Environment;
  EXPECT_EQ(from_text(kPasted).environment, (Env{{"NCCL_DEBUG", "WARN"}}));
  const auto env_of = [](const std::string& command, const std::string& nccl_lines = "", const ImportOptions& options = {}) {
    return from_text(command + "\n" + nccl_lines + kPasted.substr(kPasted.find('\n') + 1), options).environment;
  };
  EXPECT_EQ(env_of("$ NCCL_ALGO=Tree NCCL_PROTO='Simple' SECRET_TOKEN=x ./build/alltoall_perf -b 8"),
            (Env{{"NCCL_ALGO", "Tree"}, {"NCCL_PROTO", "Simple"}}));
  EXPECT_EQ(env_of("mpiexec -n 2 -genv NCCL_ALGO Ring -env FI_PROVIDER efa ./alltoall_perf"),
            (Env{{"FI_PROVIDER", "efa"}, {"NCCL_ALGO", "Ring"}}));
  EXPECT_EQ(env_of("srun --export=ALL,NCCL_ALGO=NVLS,NCCL_PROTO=^LL128 alltoall_perf"),
            (Env{{"NCCL_ALGO", "NVLS"}, {"NCCL_PROTO", "^LL128"}}));
  // After the benchmark the words are its own; a line that launches no benchmark sets nothing.
  EXPECT_EQ(env_of("mpirun ./alltoall_perf NCCL_ALGO=Tree"), Env{});
  EXPECT_EQ(env_of("export NCCL_ALGO=Tree", "", test_import::with_op("all_to_all")), Env{});
  EXPECT_EQ(env_of("mpirun -x NCCL_ALGO=Tree ./alltoall_perf",
                   "gpu-a1:1:1 [0] NCCL INFO NCCL_ALGO set by environment to Ring\n"
                   "gpu-a1:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n"),
            (Env{{"NCCL_ALGO", "Ring"}, {"NCCL_IB_HCA", "mlx5_0"}}));
  // nccl-tests#309's 2-node log, launched with mpirun -x NCCL_ALGO=Ring (tests/data/import/public).
  std::ifstream in(test_import::fixture("public/nccl-tests-issue-309-h100-2node-allreduce-ring.log"));
  EXPECT_EQ(parse_nccl_tests_log(in, "ring.log").environment,
            (Env{{"NCCL_ALGO", "Ring"}, {"NCCL_IB_QPS_PER_CONNECTION", "2"}, {"NCCL_MIN_CTAS", "24"}}));
}

TEST(ImportNcclTests, StrictRefusesThePromptAsBefore) {
  ImportOptions strict;
  strict.strict = true;
  const auto e = error_of([&] { from_text(kPasted, strict); });
  EXPECT_EQ(e.rfind("log.txt:1: unrecognised line 'user@gpu-a1:~/nccl-tests$ mpirun", 0), 0u) << e;
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

TEST(ImportNcclTests, AQuotedPasteReadsAndACutRowIsStillRefused) {
  std::string quoted;
  for (std::size_t at = 0; at < kPasted.size();) {
    const auto end = kPasted.find('\n', at);
    quoted += "> " + kPasted.substr(at, end + 1 - at);
    at = end + 1;
  }
  EXPECT_EQ(from_text(quoted).points.size(), 4u);
  std::string cut = kPasted;
  const std::string row_tail = "    11.00    0.00    0.00      0    11.00    0.00    0.00      0";
  cut.replace(cut.find(row_tail), row_tail.size(), "    11.00");
  EXPECT_NE(error_of([&] { from_text(cut); }).find("log.txt:8: a result row of"), std::string::npos);
}

TEST(ImportNcclTests, ACommandOfAnotherBinaryIsRefusedAtItsLine) {
  std::string other = kPasted;
  other.replace(other.find("alltoall_perf_mpi"), 17, "broadcast_perf");
  EXPECT_NE(error_of([&] { from_text(other); }).find("log.txt:1: broadcast_perf measures a collective meshbench does not"),
            std::string::npos);
}

TEST(ImportNcclTests, AFileWithNoTableNamesItsFirstUnrecognisedLine) {
  EXPECT_EQ(error_of([] { from_text("a,b,c\n1,2,3\n"); }).substr(0, 38), "log.txt:1: unrecognised line 'a,b,c', ");
}

// tests/data/import/public (SOURCES.md there): logs as people pasted them in public issue threads
// and documents, unchanged. Sizes and skipped lines counted by hand from each file.
struct PublicLog {
  const char* name;
  const char* op;  // --op, for the logs that name no binary anywhere
  int ranks;
  std::size_t sizes;
  int skipped;
  const char* nccl;  // the NCCL version the log states, "" when none
};
class ImportPublicNcclTestsLog : public ::testing::TestWithParam<PublicLog> {};

TEST_P(ImportPublicNcclTestsLog, ReadsEveryRowAndSkipsOnlyTheLinesAroundThem) {
  const PublicLog& c = GetParam();
  std::ifstream in(test_import::fixture(std::string("public/") + c.name));
  ASSERT_TRUE(in) << c.name;
  const auto log = parse_nccl_tests_log(in, c.name, test_import::with_op(c.op));
  EXPECT_EQ(log.ranks, c.ranks);
  EXPECT_EQ(of_timing(log, "batched").size(), c.sizes);
  EXPECT_EQ(of_timing(log, "batched_in_place").size(), c.sizes);
  EXPECT_EQ(log.skipped, c.skipped);
  std::string nccl;
  for (const auto& [k, v] : log.versions) {
    if (k == "nccl") nccl = v;
  }
  EXPECT_EQ(nccl, c.nccl);
}

INSTANTIATE_TEST_SUITE_P(Public, ImportPublicNcclTestsLog,
                         ::testing::Values(PublicLog{"nccl-tests-issue-287-rtx5090-1gpu-allreduce-prompt.log", "", 1, 25, 1, ""},
                                           PublicLog{"nccl-tests-issue-290-h100-1node-allreduce.log", "all_reduce", 8, 6, 0, ""},
                                           PublicLog{"nccl-tests-issue-290-h100-2node-allreduce-srun.log", "all_reduce", 16, 11, 1, ""},
                                           PublicLog{"nccl-tests-issue-309-h100-2node-allreduce.log", "", 16, 32, 9, "2.26.2"},
                                           PublicLog{"nccl-tests-issue-309-h100-2node-allreduce-ring.log", "", 16, 14, 2, ""},
                                           PublicLog{"nccl-tests-issue-309-h100-4node-allreduce.log", "", 32, 32, 2, "2.26.2"},
                                           PublicLog{"nccl-tests-issue-309-h100-8node-allreduce-prompt.log", "", 64, 14, 1, ""},
                                           PublicLog{"oci-gb300-1node-alltoall.log", "", 4, 2, 0, "2.28.7"},
                                           PublicLog{"ocitutorials-a100-1node-allreduce.log", "", 8, 1, 1, ""},
                                           PublicLog{"ocitutorials-a100-2node-allreduce.log", "", 16, 1, 1, ""}));

}  // namespace
}  // namespace meshbench::analysis
