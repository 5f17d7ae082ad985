// The infrastructure view: group spread, the hosts of the slowest group, slow-host blame.
#include <gtest/gtest.h>

#include "analysis/report/report_spread.hpp"
#include "report_fixture.hpp"

namespace meshbench::analysis {
namespace {

TEST(ReportSpread, SlowestGroupNamesItsRanksSlotsAndHosts) {
  testing::ScratchDir dir;
  testing::FixtureFile f;
  f.add_mapping("identity", "tp-cp-ep-dp-pp");               // TP groups: slots {0,1} on node-0, {2,3} on node-1
  f.add_mapping("crossed", "tp-cp-ep-dp-pp", {0, 2, 1, 3});  // TP groups: slots {0,2}, {1,3}: both span the nodes
  f.add_point("identity", "tp", "all_reduce", 1024, 12.0, {}, {10.0, 30.0});
  f.add_point("identity", "tp", "all_reduce", 4096, 20.0, {}, {20.0, 20.0});
  f.add_point("crossed", "tp", "all_reduce", 1024, 50.0, {}, {60.0, 40.0});
  const auto file = results::ResultsFile::open(f.write(dir / "run.h5"));
  const auto spreads = group_spreads(file);
  ASSERT_EQ(spreads.size(), 3U);
  const auto& s = spreads[0];
  // The point's whole key, the file's layout in it, as the readers key their maps.
  EXPECT_EQ(s.point, file.key_of(file.group_timings().front()));
  EXPECT_FALSE(s.point.layout.empty());
  EXPECT_EQ(s.groups, 2);
  EXPECT_DOUBLE_EQ(s.min_us, 10.0);
  EXPECT_DOUBLE_EQ(s.max_us, 30.0);
  EXPECT_DOUBLE_EQ(s.median_us, 20.0);
  EXPECT_DOUBLE_EQ(s.spread, 3.0);
  EXPECT_EQ(s.slowest_group, 1);
  EXPECT_EQ(s.slowest_ranks, (std::vector<int>{2, 3}));
  EXPECT_EQ(s.slowest_slots, (std::vector<int>{2, 3}));
  EXPECT_EQ(s.slowest_hosts, (std::vector<std::string>{"node-1"}));
  EXPECT_EQ(s.group_us, (std::vector<double>{10.0, 30.0}));
  // Through slot_of_rank: logical ranks 0,1 of "crossed" sit on slots 0 and 2, i.e. both nodes.
  EXPECT_EQ(spreads[2].slowest_ranks, (std::vector<int>{0, 1}));
  EXPECT_EQ(spreads[2].slowest_slots, (std::vector<int>{0, 2}));
  EXPECT_EQ(spreads[2].slowest_hosts, (std::vector<std::string>{"node-0", "node-1"}));

  const auto largest = spreads_at_largest_size(spreads);
  ASSERT_EQ(largest.size(), 2U);
  EXPECT_EQ(largest[0].point.bytes, 4096U);

  // node-1 holds the slow identity group and not the fast one; in "crossed" both groups span
  // both nodes, so that point blames nobody.
  const auto tally = slow_host_tally(file, spreads);
  ASSERT_EQ(tally.size(), 1U);
  EXPECT_EQ(tally[0].host, "node-1");
  EXPECT_GE(tally[0].slowest_only, 1);
  EXPECT_DOUBLE_EQ(tally[0].worst_spread, 3.0);
}

}  // namespace
}  // namespace meshbench::analysis
