#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/import/osu_log.hpp"
#include "import_fixture.hpp"
#include "tests/unit/input_error_text.hpp"

namespace meshbench::analysis {
namespace {

using test_import::osu;
using test_support::error_of;

// The fixtures are OSU 7.4's own output on this machine, 2 ranks (tests/data/import/README.md).
TEST(ImportOsu, AllreduceLatencyTable) {
  const auto log = osu("allreduce.log", test_import::with_ranks(2));
  EXPECT_EQ(log.tool, "osu");
  EXPECT_EQ(log.ranks, 2);
  EXPECT_EQ(log.runs, 1);
  const std::vector<std::pair<std::string, std::string>> versions = {{"osu-micro-benchmarks", "7.4"}};
  EXPECT_EQ(log.versions, versions);
  ASSERT_EQ(log.points.size(), 15u);  // 4 B .. 64 KiB
  const auto& p = log.points.front();
  EXPECT_EQ(p.op, "all_reduce");
  EXPECT_EQ(p.dtype, "int8");  // MPI_CHAR
  EXPECT_EQ(p.bytes, 4u);
  EXPECT_EQ(p.timing, "batched");
  EXPECT_DOUBLE_EQ(p.time_us, 1.44);
  EXPECT_EQ(p.wrong, -1);
  EXPECT_FALSE(p.min_us.has_value());
  EXPECT_EQ(log.points.back().bytes, 65536u);
  EXPECT_DOUBLE_EQ(log.points.back().time_us, 17.14);
}

TEST(ImportOsu, FullColumnsGiveMinMaxAndIterations) {
  const auto log = osu("allreduce_full.log", test_import::with_ranks(2));
  const auto& p = log.points.front();
  EXPECT_DOUBLE_EQ(p.time_us, 1.43);
  ASSERT_TRUE(p.min_us && p.max_us);
  EXPECT_DOUBLE_EQ(*p.min_us, 1.41);
  EXPECT_DOUBLE_EQ(*p.max_us, 1.44);
  EXPECT_EQ(p.iters, 50);
}

TEST(ImportOsu, PerRankSizesBecomeNcclTestsSizes) {
  // OSU's all-gather and all-to-all sizes are one rank's share; nccl-tests' (and meshbench's)
  // are the receive and send buffers: the share times the ranks.
  EXPECT_EQ(osu("allgather.log", test_import::with_ranks(2)).points.front().bytes, 8u);
  EXPECT_EQ(osu("alltoall.log", test_import::with_ranks(2)).points.front().bytes, 8u);
  EXPECT_EQ(osu("alltoall.log", test_import::with_ranks(2)).points.front().op, "all_to_all");
  EXPECT_EQ(osu("reduce_scatter.log", test_import::with_ranks(2)).points.front().bytes, 4u);
  EXPECT_EQ(osu("allreduce_np4.log", test_import::with_ranks(4)).points.front().bytes, 4u);
}

TEST(ImportOsu, PointToPointLatencyAndBandwidth) {
  const auto lat = osu("latency.log");  // two ranks whatever --ranks says
  EXPECT_EQ(lat.ranks, 2);
  EXPECT_EQ(lat.points.front().op, "send_recv");
  EXPECT_DOUBLE_EQ(lat.points.front().time_us, 0.68);
  const auto bw = osu("bw.log");
  // 64 KiB at 6948.34 MB/s (1e6 B/s): 65536 / 6948.34 us per message.
  EXPECT_EQ(bw.points.back().bytes, 65536u);
  EXPECT_NEAR(bw.points.back().time_us, 65536.0 / 6948.34, 1e-9);
}

TEST(ImportOsu, ValidationFailureIsAWrongPointAndTheLauncherBlockIsSkipped) {
  const auto log = osu("allreduce_check.log", test_import::with_ranks(2));
  ASSERT_EQ(log.points.size(), 3u);  // OSU stopped at the size that failed
  EXPECT_EQ(log.points[0].wrong, 0);
  EXPECT_EQ(log.points[2].wrong, 1);
}

TEST(ImportOsu, AppendedRunsOfOneShape) {
  std::ostringstream text;
  for (const char* name : {"allreduce.log", "allgather.log"}) {
    std::ifstream in(test_import::fixture(std::string("osu/") + name));
    text << in.rdbuf();
  }
  std::istringstream in(text.str());
  const auto log = parse_osu_log(in, "both.log", test_import::with_ranks(2));
  EXPECT_EQ(log.runs, 2);
  EXPECT_EQ(log.points.back().op, "all_gather");
  EXPECT_EQ(log.points.back().run, 1);
}

TEST(ImportOsu, Refusals) {
  EXPECT_EQ(error_of([] { osu("allreduce.log"); }),
            "allreduce.log:2: OSU does not print how many ranks ran Allreduce Latency; give --ranks N (mpirun -np N, at least 2)");
  EXPECT_EQ(error_of([] { osu("bcast.log", test_import::with_ranks(2)); }),
            "bcast.log:2: OSU's Broadcast Latency test measures an op meshbench does not store; import the logs of osu_allreduce, "
            "osu_allgather, osu_reduce_scatter, osu_alltoall, osu_latency or osu_bw");
  EXPECT_EQ(error_of([] {
              std::ifstream in(test_import::fixture("nccl-tests/all_reduce_perf.log"));
              parse_osu_log(in, "all_reduce_perf.log", test_import::with_ranks(8));
            }),
            "all_reduce_perf.log:1: this is an nccl-tests log; import it with 'meshbench import nccl-tests'");
  EXPECT_EQ(error_of([] {
              std::ifstream in(test_import::fixture("unknown_format.csv"));
              parse_osu_log(in, "unknown_format.csv", test_import::with_ranks(2));
            }).substr(0, 69),
            "unknown_format.csv:1: unrecognised line 'op,bytes,time_us,busbw_gbps'");
  std::istringstream cut("# OSU MPI Allreduce Latency Test v7.4\n# Size       Avg Latency(us)\n4      1.44\n8\n");
  EXPECT_EQ(error_of([&] { parse_osu_log(cut, "cut.log", test_import::with_ranks(2)); }).substr(0, 44),
            "cut.log:4: a result row of 1 fields where th");
  std::istringstream other("# OSU MPI Latency Test v7.4\n# Size  Latency(us)\n1  0.5\n# OSU MPI Allreduce Latency Test v7.4\n");
  EXPECT_NE(error_of([&] {
              parse_osu_log(other, "mixed.log", test_import::with_ranks(4));
            }).find("mixed.log:4: this run has 4 ranks and an earlier one"),
            std::string::npos);
  std::istringstream column("# OSU MPI Allreduce Latency Test v7.4\n# Size       Avg Latency(us)   P50 Tail Lat(us)\n");
  EXPECT_EQ(error_of([&] { parse_osu_log(column, "tail.log", test_import::with_ranks(2)); }).substr(0, 41),
            "tail.log:2: a column meshbench does not r");
}

// tests/data/import/public (SOURCES.md there): OSU output pasted with its prompt, srun's and
// MVAPICH's messages (some between rows), unchanged; sizes and skipped lines counted by hand.
TEST(ImportOsu, PublicLogsReadEveryRowAndSkipTheLinesAroundThem) {
  struct Case {
    const char* name;
    int ranks;
    std::size_t sizes;
    int skipped;
  };
  for (const Case c : {Case{"osu-jsc-tutorial-allreduce-16mib.log", 4, 1, 1}, Case{"osu-jsc-tutorial-allreduce-1gib-ucc.log", 4, 1, 1},
                       Case{"osu-mvapich2-gdr-a100-allreduce.log", 2, 19, 6}}) {
    std::ifstream in(test_import::fixture(std::string("public/") + c.name));
    ASSERT_TRUE(in) << c.name;
    const auto log = parse_osu_log(in, c.name, test_import::with_ranks(c.ranks));
    EXPECT_EQ(log.points.size(), c.sizes) << c.name;
    EXPECT_EQ(log.skipped, c.skipped) << c.name;
    ImportOptions strict = test_import::with_ranks(c.ranks);
    strict.strict = true;
    std::ifstream again(test_import::fixture(std::string("public/") + c.name));
    EXPECT_NE(test_support::error_of([&] { parse_osu_log(again, c.name, strict); }).find(":1: unrecognised line"), std::string::npos)
        << c.name;
  }
}

// The same logs without --ranks: the count is the launch command's (`$JSC_SUBMIT_CMD -n 4
// osu_allreduce`, `mpirun_rsh --export-all -np 2 a100-01 a100-01 ... osu_allreduce`); --ranks
// still decides where it is given.
TEST(ImportOsu, RanksComeFromTheLaunchCommandInTheLog) {
  for (const auto& [name, ranks] :
       {std::pair{"osu-jsc-tutorial-allreduce-16mib.log", 4}, std::pair{"osu-mvapich2-gdr-a100-allreduce.log", 2}}) {
    std::ifstream in(test_import::fixture(std::string("public/") + name));
    ASSERT_TRUE(in) << name;
    EXPECT_EQ(parse_osu_log(in, name, {}).ranks, ranks) << name;
  }
  std::ifstream given(test_import::fixture("public/osu-jsc-tutorial-allreduce-16mib.log"));
  EXPECT_EQ(parse_osu_log(given, "jsc.log", test_import::with_ranks(8)).ranks, 8);

  const auto ranks_of = [](const std::string& command) {
    std::istringstream in(command + "\n# OSU MPI Allgather Latency Test v7.4\n# Size       Avg Latency(us)\n4      1.44\n");
    const auto log = parse_osu_log(in, "cmd.log", {});
    EXPECT_EQ(log.points.front().bytes, 4U * static_cast<std::uint64_t>(log.ranks)) << command;  // all-gather: share × ranks
    return log.ranks;
  };
  EXPECT_EQ(ranks_of("$ mpirun -np 16 ./osu_allgather -m 4:4"), 16);
  EXPECT_EQ(ranks_of("$ mpirun --np 8 --map-by ppr:4:node /opt/osu/libexec/osu_allgather"), 8);
  EXPECT_EQ(ranks_of("srun -N 2 -n 8 osu_allgather"), 8);
  EXPECT_EQ(ranks_of("srun --ntasks=12 osu_allgather"), 12);
  EXPECT_EQ(ranks_of("# mpirun -np=6 osu_allgather"), 6);  // a root prompt
  // A count after the benchmark is one of its own options; a command without one gives none.
  for (const char* command : {"mpirun ./osu_allgather -n 4", "mpirun -np 4 ./osu_allgather\nmpirun ./osu_allgather", "mpirun -np 4 echo"}) {
    std::istringstream in(std::string(command) + "\n# OSU MPI Allgather Latency Test v7.4\n# Size       Avg Latency(us)\n4      1.44\n");
    EXPECT_NE(error_of([&] { parse_osu_log(in, "cmd.log", {}); }).find("OSU does not print how many ranks ran"), std::string::npos)
        << command;
  }
}

}  // namespace
}  // namespace meshbench::analysis
