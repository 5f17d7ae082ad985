#include <gtest/gtest.h>

#include "bench/watchdog.hpp"

namespace meshbench::bench {
namespace {

using Reach = Watchdog::Reach;

const std::string kPoint = "mapping 'm' tp all_reduce 64 KiB (per_iteration)";
const std::vector<std::string> kHosts = {"node-a", "node-a", "node-b", "node-b"};

std::string message(std::vector<Watchdog::PeerStatus> peers) {
  peers.insert(peers.begin(), {0, Reach::answered, true, kPoint});
  return Watchdog::describe_failure(kPoint, 4, peers, kHosts);
}

TEST(WatchdogMessage, SaysHowEachMissingRankBehaved) {
  const auto m = message({{1, Reach::answered, true, kPoint}, {2, Reach::refused, false, ""}, {3, Reach::silent, false, ""}});
  EXPECT_NE(m.find("did not finish within 4 s"), std::string::npos) << m;
  EXPECT_NE(m.find("never arrived: rank 2 on node-b (gone: its side channel refuses connections; killed or exited), "
                   "rank 3 on node-b (no answer: stopped or frozen)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("2 rank(s) waiting inside it"), std::string::npos) << m;
  EXPECT_EQ(m.find("unreachable"), std::string::npos) << m;
}

TEST(WatchdogMessage, RanksBehindALinkThatIsDownAreUnreachableNotAbsent) {
  const auto m = message({{1, Reach::answered, true, kPoint}, {2, Reach::unreachable, false, ""}, {3, Reach::unreachable, false, ""}});
  EXPECT_EQ(m.find("never arrived"), std::string::npos) << m;
  EXPECT_NE(m.find("unreachable (no connection to their side channel: their node or its link is down): rank 2 on node-b, rank 3 on node-b"),
            std::string::npos)
      << m;
}

TEST(WatchdogMessage, ARankElsewhereOrEveryRankInside) {
  auto m = message({{1, Reach::answered, true, kPoint},
                    {2, Reach::answered, false, "mapping 'm' dp all_reduce 1 KiB (per_iteration)"},
                    {3, Reach::answered, true, kPoint}});
  EXPECT_NE(m.find("never arrived: rank 2 on node-b (not inside this op; at mapping 'm' dp all_reduce 1 KiB"), std::string::npos) << m;
  m = message({{1, Reach::answered, true, kPoint}, {2, Reach::answered, true, kPoint}, {3, Reach::answered, true, kPoint}});
  EXPECT_NE(m.find("every rank is inside it"), std::string::npos) << m;
  EXPECT_NE(m.find("4 rank(s) waiting inside it"), std::string::npos) << m;
}

}  // namespace
}  // namespace meshbench::bench
