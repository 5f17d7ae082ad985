// /gpu_health and /host_copies: written with the point or on their own, read back as written,
// and absent from files that have no such rows.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "results/reader.hpp"
#include "results/writer.hpp"
#include "tests/unit/scratch_dir.hpp"
#include "tests/unit/two_cpu_node.hpp"

namespace meshbench::results {
namespace {

namespace fs = std::filesystem;

class GpuTablesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    topo_ = topology::ClusterTopology::replicate(test_support::two_cpu_node("hostA"), 1);
    header_.run = {"0.1.0", "meshbench run --out x.h5", "2026-12-01T10:00:00Z", "", "running", "nccl", 2, {"hostA", "hostA"}};
    header_.layout = {2, 2, 1, 1, 1, 2, 1, 1, "tp-cp-ep-dp-pp", ""};
    header_.mappings = {{"identity", "order", 1ULL, {0, 1}, {{"tp", {{0, 1}}}}, {{"step", 1.0}}}};
    header_.topology = &topo_;
  }

  PointRecord point(std::uint64_t bytes) const {
    PointRecord p;
    p.row.point.mapping = "identity";
    p.row.point.dim = "tp";
    p.row.point.op = "all_reduce";
    p.row.backend = "nccl";
    p.row.dtype = "float32";
    p.row.point.bytes = bytes;
    p.row.groups = 1;
    p.row.group_size = 2;
    p.row.iters = 20;
    p.row.point.timing = "per_iteration";
    p.row.point.concurrency = "concurrent";
    p.row.t_median_us = 10;
    return p;
  }

  test_support::ScratchDir scratch_{"mb-gpu-tables"};
  fs::path dir_ = scratch_.path();
  topology::ClusterTopology topo_;
  RunHeader header_;
};

TEST_F(GpuTablesTest, GpuHealthRowsRoundTripWithTheirPoint) {
  const std::string path = (dir_ / "run.h5").string();
  auto w = ResultsWriter::create(path, header_, false);
  w.append(point(1024));  // no NVML readings: no table yet
  EXPECT_TRUE(ResultsFile::open(path).gpu_health().empty());
  auto p = point(4096);
  GpuHealthRow row;
  row.point.mapping = "identity";
  row.point.dim = "tp";
  row.point.op = "all_reduce";
  row.point.timing = "per_iteration";
  row.point.concurrency = "concurrent";
  row.point.bytes = 4096;
  row.host = "hostA";
  row.rank = 1;
  row.gpu = 1;
  row.bus_id = "0000:02:00.0";
  row.readings = 7;
  row.temperature_max_c = 81;
  row.power_max_w = 650.5;
  row.sm_clock_min_mhz = 1410;
  row.sm_clock_max_mhz = 1980;
  row.utilization_mean = std::numeric_limits<double>::quiet_NaN();
  row.throttle = "hw_slowdown";
  row.throttle_mask = 0x8;
  row.throttled_readings = 3;
  row.ecc_corrected = 0;
  row.ecc_uncorrected = -1;
  row.pcie_replays = 12;
  p.readings.gpu_health = {row};
  w.append(p);
  w.record_host_copies({{"hostA", 0, "0000:01:00.0", 1, "remote", "d2h", 16 << 20, 5, 21.5, 23.0}});

  const auto f = ResultsFile::open(path);
  ASSERT_EQ(f.gpu_health().size(), 1u);
  const auto& r = f.gpu_health().front();
  EXPECT_EQ(r.point.bytes, 4096u);
  EXPECT_EQ(r.host, "hostA");
  EXPECT_EQ(r.rank, 1);
  EXPECT_EQ(r.bus_id, "0000:02:00.0");
  EXPECT_EQ(r.readings, 7);
  EXPECT_DOUBLE_EQ(r.temperature_max_c, 81);
  EXPECT_DOUBLE_EQ(r.power_max_w, 650.5);
  EXPECT_TRUE(std::isnan(r.utilization_mean));
  EXPECT_EQ(r.throttle, "hw_slowdown");
  EXPECT_EQ(r.throttle_mask, 0x8u);
  EXPECT_EQ(r.throttled_readings, 3);
  EXPECT_EQ(r.ecc_uncorrected, -1);
  EXPECT_EQ(r.pcie_replays, 12);
  ASSERT_EQ(f.host_copies().size(), 1u);
  EXPECT_EQ(f.host_copies().front().locality, "remote");
  EXPECT_EQ(f.host_copies().front().direction, "d2h");
  EXPECT_EQ(f.host_copies().front().bytes, 16u << 20);
  EXPECT_DOUBLE_EQ(f.host_copies().front().gbps_median, 21.5);
  EXPECT_EQ(f.measurements().size(), 2u);
}

TEST_F(GpuTablesTest, StoringGpuRowsIsBudgetedBeforeWriting) {
  auto p = point(1024);
  const auto without = bytes_needed_to_store(p, {});
  p.readings.gpu_health.resize(8);
  EXPECT_GT(bytes_needed_to_store(p, {}), without + 8 * 224);
}

}  // namespace
}  // namespace meshbench::results
