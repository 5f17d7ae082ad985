// The report's NIC section (analysis/report/nic_traffic.hpp) on counters given by hand: the
// bytes each op must move off each host, how an Ethernet NIC's headers are taken off, which NICs
// carry a point, and that a retransmit or drop is named by the visit it was counted in.
#include <gtest/gtest.h>

#include "analysis/report/nic_traffic.hpp"

namespace meshbench::analysis {

namespace {

using results::NicCounter;

constexpr double kMiB = 1 << 20;

std::map<std::string, double> off(ops::Op op, std::uint64_t bytes, const std::vector<std::vector<int>>& groups,
                                  const std::vector<std::string>& hosts, TrafficModel expected) {
  TrafficModel model = TrafficModel::none;
  auto out = bytes_off_each_host(op, bytes, groups, hosts, model);
  EXPECT_EQ(model, expected);
  return out;
}

results::NicCounterDelta delta(const std::string& host, const std::string& nic, const std::string& kind, std::int64_t tx,
                               std::int64_t tx_packets, std::uint64_t bytes = 1 << 20, const std::string& op = "all_reduce") {
  results::NicCounterDelta d;
  d.point.mapping = "m";
  d.point.dim = "dp";
  d.point.op = op;
  d.point.timing = "per_iteration";
  d.point.concurrency = "concurrent";
  d.point.bytes = bytes;
  d.host = host;
  d.nic = nic;
  d.kind = kind;
  d.ops = 10;
  d.counters.fill(-1);
  d.counters[results::index_of(NicCounter::tx_bytes)] = tx;
  d.counters[results::index_of(NicCounter::tx_packets)] = tx_packets;
  d.counters[results::index_of(NicCounter::rx_bytes)] = tx;
  d.counters[results::index_of(NicCounter::rx_packets)] = tx_packets;
  return d;
}

// Two hosts, one rank each, and the dp dimension over both.
results::MappingRecord two_host_mapping() {
  results::MappingRecord m;
  m.name = "m";
  m.slot_of_rank = {0, 1};
  m.groups = {{"dp", {{0, 1}}}, {"ep", {{0, 1}}}};
  return m;
}

}  // namespace

TEST(NicTraffic, TwoRanksOnTwoHostsMoveTheRingsBytes) {
  const std::vector<std::string> hosts = {"a", "b"};
  // All-reduce of N over 2 ranks: each sends N (2(n-1)/n of it); all-to-all: the other's half.
  EXPECT_EQ(off(ops::Op::all_reduce, 1 << 20, {{0, 1}}, hosts, TrafficModel::ring),
            (std::map<std::string, double>{{"a", kMiB}, {"b", kMiB}}));
  EXPECT_EQ(off(ops::Op::all_to_all, 1 << 20, {{0, 1}}, hosts, TrafficModel::exact),
            (std::map<std::string, double>{{"a", kMiB / 2}, {"b", kMiB / 2}}));
  EXPECT_EQ(off(ops::Op::all_gather, 1 << 20, {{0, 1}}, hosts, TrafficModel::ring),
            (std::map<std::string, double>{{"a", kMiB / 2}, {"b", kMiB / 2}}));
  EXPECT_EQ(off(ops::Op::send_recv, 1 << 20, {{0, 1}}, hosts, TrafficModel::exact),
            (std::map<std::string, double>{{"a", kMiB}, {"b", kMiB}}));
  off(ops::Op::all_to_allv, 1 << 20, {{0, 1}}, hosts, TrafficModel::none);
}

TEST(NicTraffic, OnlyTheRingsEdgesAcrossHostsCount) {
  // Four ranks on two hosts, a a b b: the ring 0-1-2-3 crosses from 1 to 2 and from 3 to 0.
  const std::vector<std::string> hosts = {"a", "a", "b", "b"};
  const auto ring = off(ops::Op::all_reduce, 4 << 20, {{0, 1, 2, 3}}, hosts, TrafficModel::ring);
  EXPECT_DOUBLE_EQ(ring.at("a"), 1.5 * 4 * kMiB);
  EXPECT_DOUBLE_EQ(ring.at("b"), 1.5 * 4 * kMiB);
  // Groups inside one host each move nothing off it; a group across them its share.
  const auto inside = off(ops::Op::all_reduce, 4 << 20, {{0, 1}, {2, 3}}, hosts, TrafficModel::ring);
  EXPECT_EQ(inside.at("a"), 0);
  EXPECT_EQ(inside.at("b"), 0);
  // All-to-all: each rank sends a quarter to each of the two ranks of the other host.
  const auto a2a = off(ops::Op::all_to_all, 4 << 20, {{0, 1, 2, 3}}, hosts, TrafficModel::exact);
  EXPECT_DOUBLE_EQ(a2a.at("a"), 2 * 2 * kMiB);
  // Pipeline stages a a b b: only stage 1 -> 2 and 2 -> 1 cross.
  const auto pp = off(ops::Op::send_recv, 1 << 20, {{0, 1, 2, 3}}, hosts, TrafficModel::exact);
  EXPECT_DOUBLE_EQ(pp.at("a"), kMiB);
  EXPECT_DOUBLE_EQ(pp.at("b"), kMiB);
}

TEST(NicTraffic, EthernetHeadersComeOffAndTheRatioIsPerCarryingNic) {
  const auto mapping = two_host_mapping();
  const MappingView view{[&](const std::string& name) { return name == "m" ? &mapping : nullptr; },
                         [](int slot) { return slot == 0 ? std::string("a") : std::string("b"); }};
  // 10 ops of 1 MiB: host a sent 10 MiB of payload in 1000 frames, plus a quiet second NIC.
  const std::int64_t packets = 1000;
  const std::int64_t counted = 10 * (1 << 20) + packets * kTcpFrameHeaderBytes;
  const auto t = build_nic_traffic({delta("a", "eth0", "ethernet", counted, packets), delta("a", "eth1", "ethernet", 6600, 100),
                                    delta("b", "eth0", "ethernet", counted / 2, packets / 2)},
                                   view);
  EXPECT_EQ(t.visits, 1);
  ASSERT_EQ(t.rows.size(), 2U);  // eth1 carried under a tenth of eth0's bytes
  EXPECT_EQ(t.rows[0].host, "a");
  EXPECT_EQ(t.rows[0].nic, "eth0");
  EXPECT_DOUBLE_EQ(t.rows[0].tx_payload, 10 * kMiB);
  EXPECT_DOUBLE_EQ(t.rows[0].expected_tx, 10 * kMiB);
  EXPECT_DOUBLE_EQ(t.rows[0].ratio, 1.0);
  EXPECT_EQ(t.rows[0].model, TrafficModel::ring);
  EXPECT_NEAR(t.rows[1].ratio, 0.5, 1e-3);  // host b counted half of what the ring sends
  EXPECT_TRUE(t.events.empty());
}

TEST(NicTraffic, TwoEfaNicsShareTheHostsBytes) {
  const auto mapping = two_host_mapping();
  const MappingView view{[&](const std::string&) { return &mapping; }, [](int slot) { return std::string(slot == 0 ? "a" : "b"); }};
  const auto t = build_nic_traffic(
      {delta("a", "efa_0:1", "rdma", 5 << 20, 80), delta("a", "efa_1:1", "rdma", 5 << 20, 80), delta("a", "eth0", "ethernet", 4000, 40)},
      view);
  ASSERT_EQ(t.rows.size(), 2U);
  for (const auto& r : t.rows) {
    EXPECT_EQ(r.kind, "rdma");
    EXPECT_DOUBLE_EQ(r.expected_tx, 5 * kMiB);  // 10 ops of 1 MiB, split over the two
    EXPECT_DOUBLE_EQ(r.ratio, 1.0);
  }
}

TEST(NicTraffic, IsolatedAndUnknownPointsAreShownButNotModelled) {
  const auto mapping = two_host_mapping();
  const MappingView view{[&](const std::string& name) { return name == "m" ? &mapping : nullptr; }, [](int) { return std::string("a"); }};
  auto isolated = delta("a", "eth0", "ethernet", 1 << 20, 10);
  isolated.point.concurrency = "isolated";
  auto unknown = delta("a", "eth0", "ethernet", 1 << 20, 10);
  unknown.point.mapping = "gone";
  const auto t = build_nic_traffic({isolated, unknown}, view);
  ASSERT_EQ(t.rows.size(), 2U);
  for (const auto& r : t.rows) {
    EXPECT_EQ(r.model, TrafficModel::none);
    EXPECT_EQ(r.expected_tx, -1);
    EXPECT_EQ(r.ratio, 0);
  }
}

TEST(NicTraffic, ARetransmitIsNamedByItsVisit) {
  const MappingView view{[](const std::string&) { return nullptr; }, [](int) { return std::string(); }};
  auto quiet = delta("a", "efa_0:1", "rdma", 1 << 20, 10, 1 << 20);
  auto noisy = delta("a", "efa_0:1", "rdma", 1 << 20, 10, 4 << 20);
  quiet.counters[results::index_of(NicCounter::retrans_packets)] = 0;
  noisy.counters[results::index_of(NicCounter::retrans_packets)] = 2;
  noisy.counters[results::index_of(NicCounter::retrans_bytes)] = 16384;
  noisy.round = 1;
  auto dropped = delta("b", "eth0", "ethernet", 1 << 20, 10, 1 << 20, "all_to_all");
  dropped.counters[results::index_of(NicCounter::rx_dropped)] = 3;
  const auto t = build_nic_traffic({quiet, noisy, dropped}, view);
  ASSERT_EQ(t.events.size(), 2U);
  EXPECT_EQ(t.events[0].visit.point.bytes, 4U << 20);
  EXPECT_EQ(t.events[0].visit.round, 1);
  EXPECT_EQ(t.events[0].host, "a");
  EXPECT_EQ(t.events[0].what, "2 retransmitted packets (16384 bytes)");
  EXPECT_EQ(t.events[1].visit.point.op, "all_to_all");
  EXPECT_EQ(t.events[1].what, "3 dropped on receive");
  EXPECT_EQ(t.visits, 3);
}

}  // namespace meshbench::analysis
