#include <gtest/gtest.h>

#include <cmath>

#include "analysis/report/gpu_health_report.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

using testing::FixtureFile;
using testing::ScratchDir;

results::GpuHealthRow health(const results::PointRecord& p, int rank, const std::string& host, const std::string& throttle, int attempt,
                             std::int64_t replays, double temperature) {
  results::GpuHealthRow r;
  r.point = p.row.point;
  r.attempt = attempt;
  r.host = host;
  r.rank = rank;
  r.gpu = rank % 2;
  r.bus_id = "0000:0" + std::to_string(rank % 2 + 1) + ":00.0";
  r.readings = 4;
  r.temperature_max_c = temperature;
  r.sm_clock_min_mhz = throttle.empty() ? 1980 : 1100;
  r.throttle = throttle;
  r.throttled_readings = throttle.empty() ? 0 : 2;
  r.ecc_corrected = 0;
  r.ecc_uncorrected = 0;
  r.pcie_replays = replays;
  return r;
}

// node-1's GPU throttles during the 4 KiB point; an attempt the state probe threw away throttled
// too, and is not reported; the replays of every attempt count.
TEST(GpuHealthReport, ThrottledKeptVisitsAndHostsSideBySide) {
  const ScratchDir dir;
  FixtureFile f;
  f.add_mapping("identity", "tp-cp-ep-dp-pp");
  auto& small = f.add_point("identity", "tp", "all_reduce", 1024, 10);
  small.readings.gpu_health = {health(small, 0, "node-0", "", 1, 0, 60), health(small, 2, "node-1", "", 1, 1, 62)};
  auto& big = f.add_point("identity", "tp", "all_reduce", 4096, 20);
  big.states = {{{"", "identity", "tp", "all_reduce", "per_iteration", "concurrent", 4096}, 0, 1, 500, 5, false},
                {{"", "identity", "tp", "all_reduce", "per_iteration", "concurrent", 4096}, 0, 2, 100, 1, true}};
  big.readings.gpu_health = {health(big, 0, "node-0", "sw_power_cap", 1, 0, 70), health(big, 2, "node-1", "hw_slowdown", 1, 2, 80),
                             health(big, 0, "node-0", "", 2, 0, 61), health(big, 2, "node-1", "hw_slowdown,hw_thermal", 2, 0, 91)};
  const auto file = results::ResultsFile::open(f.write(dir / "run.h5"));
  const auto s = gpu_health_section(file, {{"node-1", 2, 2, 1.8}});
  ASSERT_TRUE(s.sampled);
  ASSERT_EQ(s.throttled.size(), 1u);
  EXPECT_EQ(s.throttled[0].visit.point.bytes, 4096u);
  EXPECT_EQ(s.throttled[0].host, "node-1");
  EXPECT_EQ(s.throttled[0].reasons, "hw_slowdown,hw_thermal");
  ASSERT_EQ(s.hosts.size(), 2u);
  const auto& n0 = s.hosts[0];
  const auto& n1 = s.hosts[1];
  EXPECT_EQ(n0.host, "node-0");
  EXPECT_EQ(n0.throttled_points, 0);  // its power cap was on the attempt measured again
  EXPECT_EQ(n0.slowest_only, 0);
  EXPECT_EQ(n1.throttled_points, 1);
  EXPECT_EQ(n1.reasons, "hw_slowdown,hw_thermal");
  EXPECT_DOUBLE_EQ(n1.temperature_max_c, 91);
  EXPECT_DOUBLE_EQ(n1.sm_clock_min_mhz, 1100);
  EXPECT_EQ(n1.pcie_replays, 3);
  EXPECT_EQ(n1.slowest_only, 2);
  EXPECT_EQ(n1.points, 2);
}

TEST(GpuHealthReport, AFileWithoutNvmlReadingsHasNoSection) {
  const ScratchDir dir;
  FixtureFile f;
  f.add_mapping("identity", "tp-cp-ep-dp-pp");
  f.add_point("identity", "tp", "all_reduce", 1024, 10);
  const auto s = gpu_health_section(results::ResultsFile::open(f.write(dir / "run.h5")), {});
  EXPECT_FALSE(s.sampled);
  EXPECT_TRUE(s.throttled.empty());
  EXPECT_TRUE(s.hosts.empty());
}

}  // namespace
}  // namespace meshbench::analysis
