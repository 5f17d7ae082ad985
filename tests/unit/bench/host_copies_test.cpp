#include <gtest/gtest.h>

#include "bench/sensors/host_copies.hpp"

namespace meshbench::bench {
namespace {

TEST(HostCopies, LocalIsTheGpusNodeRemoteTheFarthestOther) {
  // Two sockets of two NUMA nodes each (hwloc's latencies: 10 self, 12 same socket, 32 across).
  const std::vector<std::uint64_t> d = {10, 12, 32, 32, 12, 10, 32, 32, 32, 32, 10, 12, 32, 32, 12, 10};
  EXPECT_EQ(copy_sources(1, 4, d).local, 1);
  EXPECT_EQ(copy_sources(1, 4, d).remote, 2);  // the first node of the other socket
  EXPECT_EQ(copy_sources(3, 4, d).remote, 0);
  // Without distances: the node numbered farthest away.
  EXPECT_EQ(copy_sources(0, 2, {}).remote, 1);
  EXPECT_EQ(copy_sources(1, 4, {}).remote, 3);
  // One NUMA node: no remote; an unknown node: nothing.
  EXPECT_EQ(copy_sources(0, 1, {}).local, 0);
  EXPECT_EQ(copy_sources(0, 1, {}).remote, -1);
  EXPECT_EQ(copy_sources(-1, 2, {}).local, -1);
  EXPECT_EQ(copy_sources(2, 2, {}).local, -1);
}

TEST(HostCopies, RowsCarryMedianAndBestBandwidth) {
  EXPECT_DOUBLE_EQ(copy_gbps(1'000'000'000, 0.5), 2.0);
  EXPECT_DOUBLE_EQ(copy_gbps(1024, 0), 0.0);
  const auto r = host_copy_row("h", 3, "0000:19:00.0", 1, false, true, 16'000'000, {0.002, 0.001, 0.004, 0.0008});
  EXPECT_EQ(r.locality, "remote");
  EXPECT_EQ(r.direction, "h2d");
  EXPECT_EQ(r.iters, 4);
  EXPECT_DOUBLE_EQ(r.gbps_median, 16'000'000 / 0.0015 / 1e9);  // the median of 4 is between the middle two
  EXPECT_DOUBLE_EQ(r.gbps_max, 20.0);
}

TEST(HostCopies, RowsTravelAsLinesUnchanged) {
  const std::vector<results::HostCopyRow> rows = {{"node-a", 0, "0000:19:00.0", 0, "local", "h2d", 1 << 20, 5, 24.125, 25.5},
                                                  {"node-a", 0, "0000:19:00.0", 1, "remote", "d2h", 128 << 20, 5, 19.0625, 20.0}};
  const auto back = decode_host_copies(encode_host_copies(rows));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].host, "node-a");
  EXPECT_EQ(back[1].numa_node, 1);
  EXPECT_EQ(back[1].locality, "remote");
  EXPECT_EQ(back[1].bytes, 128u << 20);
  EXPECT_DOUBLE_EQ(back[1].gbps_median, 19.0625);
  EXPECT_TRUE(decode_host_copies("").empty());
}

}  // namespace
}  // namespace meshbench::bench
