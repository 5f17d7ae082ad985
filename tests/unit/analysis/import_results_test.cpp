#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/import/import_results.hpp"
#include "import_fixture.hpp"
#include "mapping/mapping.hpp"
#include "tests/unit/input_error_text.hpp"

namespace meshbench::analysis {
namespace {

using test_import::nccl_tests;
using test_import::osu;
using test_import::with_ranks;
using test_support::error_of;

const results::PointRecord& find(const ImportedResults& r, const std::string& op, std::uint64_t bytes, const std::string& timing) {
  for (const auto& p : r.points) {
    if (p.row.point.op == op && p.row.point.bytes == bytes && p.row.point.timing == timing) return p;
  }
  throw std::runtime_error("no point " + op + " " + std::to_string(bytes) + " " + timing);
}

TEST(ImportResults, OneCommunicatorOfEveryRankAsThePureDataParallelLayout) {
  const auto r = imported_results({nccl_tests("all_reduce_perf.log")}, "meshbench import nccl-tests x", "2026-11-20T10:00:00Z");
  const auto& h = r.header;
  EXPECT_EQ(h.run.world_size, 8);
  EXPECT_EQ(h.run.backend, "nccl");
  EXPECT_EQ(h.run.status, "complete");
  EXPECT_EQ(h.run.started_at, "2026-11-20T10:00:00Z");
  EXPECT_EQ(h.run.rounds, 1);
  EXPECT_EQ(h.layout.world, 8);
  EXPECT_EQ(h.layout.dp, 8);
  EXPECT_EQ(h.layout.tp, 1);
  ASSERT_EQ(h.mappings.size(), 1u);
  const auto& m = h.mappings.front();
  EXPECT_EQ(m.name, "nccl-tests");
  // The digest a meshbench run of the same layout, placed in rank order, would carry.
  mapping::Layout layout;
  layout.world = 8;
  EXPECT_EQ(m.digest, mapping::structure_digest(mapping::make_mapping("x", "", layout, {0, 1, 2, 3, 4, 5, 6, 7})));
  for (const auto& [dim, groups] : m.groups) {
    if (dim == "dp") {
      EXPECT_EQ(groups, (std::vector<std::vector<int>>{{0, 1, 2, 3, 4, 5, 6, 7}}));
    }
  }
  ASSERT_EQ(r.points.size(), 50u);
  const auto& p = find(r, "all_reduce", 128u << 20, "batched");
  EXPECT_EQ(p.row.point.dim, "dp");
  EXPECT_EQ(p.row.point.concurrency, "concurrent");
  EXPECT_EQ(p.row.groups, 1);
  EXPECT_EQ(p.row.group_size, 8);
  // algbw = bytes / time; busbw = algbw x 2(n-1)/n, which nccl-tests printed to two decimals.
  const double algbw = static_cast<double>(128u << 20) / p.row.t_median_us / 1e3;
  EXPECT_DOUBLE_EQ(p.row.algbw_gbps, algbw);
  EXPECT_DOUBLE_EQ(p.row.busbw_gbps, algbw * 2 * 7 / 8);
  EXPECT_NEAR(p.row.busbw_gbps, 44.23, 0.005);  // the busbw the log printed for this row
  ASSERT_EQ(p.samples.size(), 1u);
  EXPECT_TRUE(p.rounds.empty());
  ASSERT_EQ(p.groups.size(), 1u);
  EXPECT_EQ(p.groups.front().group, 0);
  const auto& versions = h.provenance.versions;
  const auto has = [&](const std::string& k, const std::string& v) {
    return std::find(versions.begin(), versions.end(), std::pair<std::string, std::string>(k, v)) != versions.end();
  };
  EXPECT_TRUE(has("imported_from", "nccl-tests"));
  EXPECT_TRUE(has("nccl", "2.28.3"));
  EXPECT_TRUE(has("devices", "8x NVIDIA H100 80GB HBM3"));
}

TEST(ImportResults, PointsPrintedAgainAreRoundsOfOnePoint) {
  const auto r = imported_results({nccl_tests("appended.log")}, "", "");
  EXPECT_EQ(r.header.run.rounds, 2);
  const auto& twice = find(r, "all_reduce", 8, "batched");
  ASSERT_EQ(twice.rounds.size(), 2u);
  ASSERT_EQ(twice.samples.size(), 2u);
  const double a = twice.rounds[0].t_median_us, b = twice.rounds[1].t_median_us;
  EXPECT_DOUBLE_EQ(twice.row.t_median_us, (a + b) / 2);
  EXPECT_DOUBLE_EQ(twice.row.t_min_us, std::min(a, b));
  EXPECT_DOUBLE_EQ(twice.row.t_max_us, std::max(a, b));
  EXPECT_EQ(twice.row.iters, 40);
  const auto& once = find(r, "all_gather", 64, "batched");
  EXPECT_TRUE(once.rounds.empty());
  EXPECT_EQ(once.samples.size(), 1u);
}

TEST(ImportResults, CyclesOfOneRunAreRoundsToo) {
  const auto r = imported_results({nccl_tests("cycles.log")}, "", "");  // nccl-tests -N 3
  EXPECT_EQ(r.header.run.rounds, 3);
  ASSERT_EQ(r.points.size(), 10u);  // 64 B .. 1 KiB, both timings
  for (const auto& p : r.points) {
    ASSERT_EQ(p.rounds.size(), 3u);
    std::vector<double> t = {p.rounds[0].t_median_us, p.rounds[1].t_median_us, p.rounds[2].t_median_us};
    std::sort(t.begin(), t.end());
    EXPECT_DOUBLE_EQ(p.row.t_median_us, t[1]);
    EXPECT_EQ(p.row.iters, 60);
  }
}

TEST(ImportResults, OsuSpreadAndPointToPointBusFactor) {
  const auto r = imported_results({osu("allreduce_full.log", with_ranks(2))}, "", "");
  EXPECT_EQ(r.header.run.backend, "mpi");
  EXPECT_TRUE(r.header.run.hosts.empty());
  const auto& p = find(r, "all_reduce", 4, "batched");
  EXPECT_DOUBLE_EQ(p.row.t_median_us, 1.43);
  EXPECT_DOUBLE_EQ(p.row.t_min_us, 1.41);
  EXPECT_DOUBLE_EQ(p.row.t_max_us, 1.44);
  EXPECT_EQ(p.row.iters, 50);
  const auto bw = imported_results({osu("bw.log")}, "", "");
  const auto& q = find(bw, "send_recv", 65536, "batched");
  EXPECT_NEAR(q.row.busbw_gbps, 6.94834, 1e-9);  // 6948.34 MB/s, bus factor 1
}

TEST(ImportResults, LogsOfAnotherShapeAreRefused) {
  EXPECT_EQ(error_of([] {
              imported_results({nccl_tests("all_reduce_perf.log"), nccl_tests("threads.log")}, "", "");
            }),
            "threads.log ran on other hosts than all_reduce_perf.log (gpu-a1); a results file holds one run shape: import them into "
            "separate files");
  EXPECT_NE(error_of([] {
              imported_results({osu("allreduce.log", with_ranks(2)), osu("allreduce_np4.log", with_ranks(4))}, "", "");
            }).find("allreduce_np4.log ran on 4 ranks and allreduce.log on 2"),
            std::string::npos);
  EXPECT_NE(error_of([] { imported_results({}, "", ""); }), "");
}

}  // namespace
}  // namespace meshbench::analysis
