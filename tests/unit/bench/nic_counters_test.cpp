// The NIC counter reader (bench/sensors/nic_counters.hpp) on text given here and on the canned
// trees of tests/data/nic-counters: which file becomes which counter, InfiniBand's 4-byte words,
// the loopback left out, the growth between two readings, and the errors a wrong root gets.
#include <gtest/gtest.h>

#include <string>

#include "bench/sensors/nic_counters.hpp"
#include "common/error.hpp"

namespace meshbench::bench {

namespace {

using results::NicCounter;

std::int64_t value(const NicReading& r, NicCounter c) { return r.values[results::index_of(c)]; }

const NicReading& named(const std::vector<NicReading>& all, const std::string& nic) {
  for (const auto& r : all) {
    if (r.nic == nic) return r;
  }
  throw std::runtime_error("no NIC " + nic);
}

std::string tree(const std::string& name) { return std::string(MESHBENCH_TEST_DATA) + "/nic-counters/" + name; }

constexpr const char* kProcNetDev =
    "Inter-|   Receive                                                |  Transmit\n"
    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
    "    lo:  123456     789    0    0    0     0          0         0   123456     789    0    0    0     0       0          0\n"
    "  eth0: 9876543210 1234567 3 4 0 0 0 12 1122334455 998877 5 6 0 0 0 0\n"
    "ens5:100 2 0 0 0 0 0 0 300 4 0 0 0 0 0 0\n";

}  // namespace

TEST(NicCounters, ProcNetDevGivesEveryInterfaceButTheLoopback) {
  const auto all = parse_proc_net_dev(kProcNetDev);
  ASSERT_EQ(all.size(), 2U);
  const auto& eth0 = all[0];
  EXPECT_EQ(eth0.nic, "eth0");
  EXPECT_EQ(eth0.kind, "ethernet");
  EXPECT_EQ(value(eth0, NicCounter::rx_bytes), 9876543210);
  EXPECT_EQ(value(eth0, NicCounter::rx_packets), 1234567);
  EXPECT_EQ(value(eth0, NicCounter::rx_errors), 3);
  EXPECT_EQ(value(eth0, NicCounter::rx_dropped), 4);
  EXPECT_EQ(value(eth0, NicCounter::tx_bytes), 1122334455);
  EXPECT_EQ(value(eth0, NicCounter::tx_packets), 998877);
  EXPECT_EQ(value(eth0, NicCounter::tx_errors), 5);
  EXPECT_EQ(value(eth0, NicCounter::tx_dropped), 6);
  EXPECT_EQ(value(eth0, NicCounter::retrans_packets), -1);  // Ethernet has none
  // A name run into its first number ("ens5:100"), as the kernel prints long names.
  EXPECT_EQ(all[1].nic, "ens5");
  EXPECT_EQ(value(all[1], NicCounter::rx_bytes), 100);
  EXPECT_EQ(value(all[1], NicCounter::tx_packets), 4);
}

TEST(NicCounters, ProcNetDevOfTheWrongShapeIsRefused) {
  EXPECT_THROW(parse_proc_net_dev("eth0: 1 2 3\n"), InputError);
  const std::string header =
      "Inter-|   Receive |  Transmit\n"
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes\n";
  EXPECT_THROW(parse_proc_net_dev(header + "eth0: 1 2 3 4\n"), InputError);
  EXPECT_THROW(parse_proc_net_dev(header + "eth0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"), InputError);
  EXPECT_THROW(parse_proc_net_dev(header + "eth0: x 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"), InputError);
  EXPECT_TRUE(parse_proc_net_dev(header).empty());
}

TEST(NicCounters, EfaHardwareCountersKeepTheirNames) {
  const auto r = parse_rdma_port("efa_0:1",
                                 {{"tx_bytes", "100\n"},
                                  {"rx_bytes", "200\n"},
                                  {"tx_pkts", "3\n"},
                                  {"rx_pkts", "4\n"},
                                  {"rx_drops", "5\n"},
                                  {"retrans_pkts", "6\n"},
                                  {"retrans_bytes", "7\n"},
                                  {"retrans_timeout_events", "8\n"},
                                  {"unresponsive_remote_events", "9\n"},
                                  {"impaired_remote_conn_events", "10\n"},
                                  {"rdma_read_bytes", "11\n"},
                                  {"rdma_write_bytes", "12\n"},
                                  {"lifespan", "not a counter we keep\n"}},
                                 {});
  EXPECT_EQ(r.kind, "rdma");
  const std::pair<NicCounter, std::int64_t> expected[] = {
      {NicCounter::tx_bytes, 100},       {NicCounter::rx_bytes, 200},       {NicCounter::tx_packets, 3},
      {NicCounter::rx_packets, 4},       {NicCounter::rx_dropped, 5},       {NicCounter::retrans_packets, 6},
      {NicCounter::retrans_bytes, 7},    {NicCounter::retrans_timeouts, 8}, {NicCounter::unresponsive_remote, 9},
      {NicCounter::impaired_remote, 10}, {NicCounter::rdma_read_bytes, 11}, {NicCounter::rdma_write_bytes, 12},
      {NicCounter::tx_dropped, -1},      {NicCounter::tx_errors, -1},       {NicCounter::rx_errors, -1}};
  for (const auto& [c, v] : expected) EXPECT_EQ(value(r, c), v) << results::kNicCounterNames[results::index_of(c)];
}

TEST(NicCounters, InfinibandPortDataCountsFourByteWords) {
  const auto all = read_nic_counters(tree("ib/t0"));
  ASSERT_EQ(all.size(), 1U);  // the tree has no proc/net/dev
  const auto& r = all[0];
  EXPECT_EQ(r.nic, "mlx5_0:1");
  EXPECT_EQ(value(r, NicCounter::tx_bytes), 4 * 262144);
  EXPECT_EQ(value(r, NicCounter::rx_bytes), 4 * 131072);
  EXPECT_EQ(value(r, NicCounter::tx_packets), 300);
  EXPECT_EQ(value(r, NicCounter::rx_packets), 200);
  EXPECT_EQ(value(r, NicCounter::tx_dropped), 2);
  EXPECT_EQ(value(r, NicCounter::rx_errors), 1);
  EXPECT_EQ(value(r, NicCounter::retrans_timeouts), 3);  // mlx5's local_ack_timeout_err
  EXPECT_EQ(value(r, NicCounter::retrans_packets), -1);
}

TEST(NicCounters, WordsPastTwoToTheSixtyThreeBytesAreWrapped) {
  // 2^62 words are 2^64 bytes: unknown (-1), like a counter past 2^63, not a signed overflow.
  const auto r = parse_rdma_port("mlx5_0:1", {}, {{"port_xmit_data", "4611686018427387904\n"}, {"port_rcv_data", "2305843009213693951"}});
  EXPECT_EQ(value(r, NicCounter::tx_bytes), -1);
  EXPECT_EQ(value(r, NicCounter::rx_bytes), 4 * 2305843009213693951);
}

TEST(NicCounters, ACounterFileWithALineBreakIsRefusedOnOneLine) {
  try {
    parse_rdma_port("efa_0:1", {{"tx_bytes", "12\n34\n"}}, {});
    FAIL() << "two lines were read as a counter";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("('12?34')"), std::string::npos) << e.what();
  }
}

TEST(NicCounters, AnEfaTreeGivesItsPortsThenItsInterfaces) {
  const auto all = read_nic_counters(tree("efa/t0"));
  ASSERT_EQ(all.size(), 3U);
  EXPECT_EQ(all[0].nic, "efa_0:1");
  EXPECT_EQ(all[1].nic, "efa_1:1");
  EXPECT_EQ(all[2].nic, "eth0");
  EXPECT_EQ(value(all[0], NicCounter::tx_bytes), 1000000);
  EXPECT_EQ(value(all[2], NicCounter::tx_bytes), 6000);
}

TEST(NicCounters, GrowthBetweenReadingsIsPerNicAndCounter) {
  const auto t1 = read_nic_counters(tree("efa/t1"));
  const auto t2 = read_nic_counters(tree("efa/t2"));
  const auto growth = counter_growth(t1, t2);
  ASSERT_EQ(growth.size(), 3U);
  const auto& efa0 = named(growth, "efa_0:1");
  EXPECT_EQ(value(efa0, NicCounter::tx_bytes), 2 * 1048576);
  EXPECT_EQ(value(efa0, NicCounter::retrans_packets), 1);
  EXPECT_EQ(value(efa0, NicCounter::retrans_bytes), 8192);
  EXPECT_EQ(value(efa0, NicCounter::rx_dropped), 0);
  EXPECT_EQ(value(named(growth, "efa_1:1"), NicCounter::rx_dropped), 1);
  EXPECT_EQ(value(named(growth, "efa_1:1"), NicCounter::retrans_packets), 0);
  EXPECT_EQ(value(named(growth, "eth0"), NicCounter::tx_packets), 3);
  // A counter that went backwards (a reset) is unknown, not negative; a NIC that came is left out.
  const auto back = counter_growth(t2, t1);
  EXPECT_EQ(value(named(back, "efa_0:1"), NicCounter::tx_bytes), -1);
  EXPECT_EQ(value(named(back, "efa_0:1"), NicCounter::rdma_read_bytes), 0);
  EXPECT_EQ(counter_growth({}, t1).size(), 0U);
}

TEST(NicCounters, AWrongRootOrCounterIsOneLine) {
  try {
    read_nic_counters(tree("no-such-tree"));
    FAIL() << "a missing root was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--counter-root"), std::string::npos) << e.what();
  }
  try {
    read_nic_counters(tree("bad"));
    FAIL() << "a counter that is not a number was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("efa_0:1: hw_counters/tx_bytes is not a counter"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(read_nic_counters(tree("ib/t0/sys")).empty());  // a folder with neither source
}

TEST(NicCounters, TestRootsAreAList) {
  EXPECT_TRUE(parse_test_counter_roots(nullptr).empty());
  EXPECT_EQ(parse_test_counter_roots("a,b,b"), (std::vector<std::string>{"a", "b", "b"}));
  EXPECT_THROW(parse_test_counter_roots("a,,b"), InputError);
}

}  // namespace meshbench::bench
