#include "testbed/link_network.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "testbed/link_config.hpp"

namespace meshbench::testbed {
namespace {

// Two nodes of two slots: NIC 8 Mbit/s with 1 ms each way, in-node 80 Mbit/s with 0.5 ms.
LinkNetwork two_by_two(std::size_t queue_bytes = 1u << 20) {
  NodeLinks node;
  node.nic = {8e6, 1e-3};
  node.in_node = {80e6, 0.5e-3};
  return LinkNetwork({node, node}, 2, queue_bytes);
}

std::vector<Delivery> drain(LinkNetwork& network) { return network.advance(1e9); }

TEST(LinkNetwork, AFrameToAnotherNodeTakesBothNicsSerialisationAndBothDelays) {
  LinkNetwork network = two_by_two();
  ASSERT_TRUE(network.send(7, 0, 2, 1000, 0.0));
  // 8000 bits at 8 Mbit/s = 1 ms out, 1 ms delay, 1 ms in, 1 ms delay.
  EXPECT_NEAR(network.next_event_s(), 1e-3, 1e-12);
  EXPECT_TRUE(network.advance(3.9e-3).empty());
  const auto delivered = network.advance(4.0e-3 + 1e-12);
  ASSERT_EQ(delivered.size(), 1u);
  EXPECT_EQ(delivered[0].packet, 7u);
  EXPECT_EQ(delivered[0].to_slot, 2);
  EXPECT_NEAR(delivered[0].at_s, 4e-3, 1e-12);
}

TEST(LinkNetwork, AFrameInsideANodeTakesTheInNodePortsNotTheNic) {
  LinkNetwork network = two_by_two();
  ASSERT_TRUE(network.send(1, 2, 3, 1000, 0.0));
  const auto delivered = drain(network);
  ASSERT_EQ(delivered.size(), 1u);
  // 0.1 ms out, 0.5 ms delay, 0.1 ms in.
  EXPECT_NEAR(delivered[0].at_s, 0.7e-3, 1e-12);
  const auto& c = network.counters();
  EXPECT_EQ(c[2 * 2].packets, 1u);      // slot 2 out
  EXPECT_EQ(c[2 * 3 + 1].packets, 1u);  // slot 3 in
  EXPECT_EQ(c[8 + 2].packets, 0u);      // node 1's NIC out
}

TEST(LinkNetwork, EachCounterIsNamedAfterThePortItCounts) {
  LinkNetwork network = two_by_two();
  ASSERT_TRUE(network.send(1, 1, 2, 1000, 0.0));  // slot 1 (node 0) to slot 2 (node 1)
  ASSERT_EQ(drain(network).size(), 1u);
  std::vector<std::string> used;
  for (std::size_t q = 0; q < network.counters().size(); ++q)
    if (network.counters()[q].packets > 0) used.push_back(network.queue_name(q));
  EXPECT_EQ(used, (std::vector<std::string>{"node0.nic_out", "node1.nic_in"}));
  EXPECT_EQ(network.queue_name(3), "slot1.in_node_in");
  EXPECT_THROW((void)network.queue_name(network.counters().size()), std::out_of_range);
}

TEST(LinkNetwork, TwoFlowsThroughOneNicShareItsRate) {
  LinkNetwork network = two_by_two();
  // Slots 0 and 1 each send 100 frames of 1000 B to node 1: node 0's NIC carries 200 frames.
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(network.send(2 * i, 0, 2, 1000, 0.0));
    ASSERT_TRUE(network.send(2 * i + 1, 1, 3, 1000, 0.0));
  }
  double last = 0;
  for (const auto& d : drain(network)) last = std::max(last, d.at_s);
  // 200 frames at 1 ms each through the shared NIC, then the last frame's delay, NIC in and delay.
  EXPECT_NEAR(last, 200e-3 + 1e-3 + 1e-3 + 1e-3, 1e-9);

  LinkNetwork alone = two_by_two();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(alone.send(i, 0, 2, 1000, 0.0));
  double alone_last = 0;
  for (const auto& d : drain(alone)) alone_last = std::max(alone_last, d.at_s);
  EXPECT_NEAR(alone_last, 100e-3 + 3e-3, 1e-9);
}

TEST(LinkNetwork, InNodeFlowsFromDifferentSlotsDoNotShareAPort) {
  LinkNetwork network = two_by_two();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(network.send(2 * i, 0, 1, 1000, 0.0));
    ASSERT_TRUE(network.send(2 * i + 1, 1, 0, 1000, 0.0));
  }
  double last = 0;
  for (const auto& d : drain(network)) last = std::max(last, d.at_s);
  // Each direction alone: 10 x 0.1 ms, the delay, one frame's 0.1 ms in.
  EXPECT_NEAR(last, 1e-3 + 0.5e-3 + 0.1e-3, 1e-9);
}

TEST(LinkNetwork, AFullQueueDropsWhatArrivesAndTheDropIsReported) {
  LinkNetwork network = two_by_two(/*queue_bytes=*/3000);
  EXPECT_TRUE(network.send(1, 0, 2, 1000, 0.0));
  EXPECT_TRUE(network.send(2, 0, 2, 1000, 0.0));
  EXPECT_TRUE(network.send(3, 0, 2, 1000, 0.0));
  EXPECT_FALSE(network.send(4, 0, 2, 1000, 0.0));
  EXPECT_EQ(network.counters()[8].dropped, 1u);
  // Once the first frame has left, there is room again.
  EXPECT_TRUE(network.send(5, 0, 2, 1000, 1.0e-3));
  EXPECT_EQ(drain(network).size(), 4u);
}

TEST(LinkNetwork, AnAcknowledgementOvertakesTheBulkQueuedAheadOfIt) {
  LinkNetwork network = two_by_two();
  // 50 bulk frames (50 ms at 8 Mbit/s) from slot 0 to node 1, then a 66-byte TCP acknowledgement.
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(network.send(i, 0, 2, 1000, 0.0));
  ASSERT_TRUE(network.send(99, 1, 3, 66, 0.0));
  double ack = 0, last_bulk = 0;
  for (const auto& d : drain(network)) (d.packet == 99 ? ack : last_bulk) = std::max(d.packet == 99 ? ack : last_bulk, d.at_s);
  // It waits for the bulk frame being sent (1 ms) and no other: 1 + 0.066 ms out, 1 ms delay,
  // then node 1's NIC, where the bulk frames arrive one per ms and it again waits for at most one.
  EXPECT_LT(ack, 5e-3);
  EXPECT_NEAR(last_bulk, 50e-3 + 3e-3 + 0.066e-3, 1e-9);
}

TEST(LinkNetwork, AnUnshapedLinkAddsOnlyItsDelay) {
  NodeLinks node;
  node.nic = {0, 2e-3};
  LinkNetwork network({node, node}, 1, 1u << 20);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(network.send(i, 0, 1, 9000, 0.0));
  const auto delivered = drain(network);
  ASSERT_EQ(delivered.size(), 50u);
  for (const auto& d : delivered) EXPECT_NEAR(d.at_s, 4e-3, 1e-12);
}

TEST(LinkNetwork, ASlowerNodesNicSetsTheRateIntoIt) {
  NodeLinks fast, slow;
  fast.nic = {16e6, 0};
  slow.nic = {8e6, 0};
  LinkNetwork network({fast, slow}, 1, 1u << 20);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(network.send(i, 0, 1, 1000, 0.0));
  double last = 0;
  for (const auto& d : drain(network)) last = std::max(last, d.at_s);
  // The 8 Mbit/s way in is the bottleneck: 100 ms, plus the first frame's 0.5 ms at 16 Mbit/s.
  EXPECT_NEAR(last, 100.5e-3, 1e-9);
}

TEST(LinkConfig, ReadsNodesAndSlotsInOrder) {
  std::istringstream in(
      "# written by up.sh\n"
      "queue_bytes 65536\n"
      "node 0 100000000 0.002 400000000 0.0005\n"
      "node 1 50000000 0.002 400000000 0.0005\n"
      "slot mbn-a-n0 10.211.0.1 0\nslot mbn-a-n0s1 10.211.1.1 0\n"
      "slot mbn-a-n1 10.211.0.2 1\nslot mbn-a-n1s1 10.211.1.2 1\n");
  const LinkConfig config = parse_link_config(in);
  EXPECT_EQ(config.queue_bytes, 65536u);
  ASSERT_EQ(config.nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(config.nodes[1].nic.bits_per_second, 50e6);
  EXPECT_DOUBLE_EQ(config.nodes[0].in_node.delay_s, 0.5e-3);
  EXPECT_EQ(config.slots_per_node(), 2);
  EXPECT_EQ(config.slots[1].ipv4, (10u << 24) | (211u << 16) | (1u << 8) | 1u);
}

TEST(LinkConfig, RefusesWhatItCannotShapeNamingTheLine) {
  const auto refusal = [](const std::string& text) {
    std::istringstream in(text);
    try {
      parse_link_config(in);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refusal("node 0 -5 0 0 0\nslot a 10.0.0.1 0\n"), "line 1: NIC rate '-5' is not a number >= 0");
  EXPECT_EQ(refusal("node 0 1 0 1 0\nslot a 10.0.0.300 0\n"), "line 2: '10.0.0.300' is not an IPv4 address");
  EXPECT_EQ(refusal("node 0 1 0 1 0\nnode 1 1 0 1 0\nslot a 10.0.0.1 0\n"), "every node must have the same number of slots");
  EXPECT_EQ(refusal("node 0 1 0 1 0\nnode 1 1 0 1 0\nslot a 10.0.0.1 1\nslot b 10.0.0.2 0\n"), "slot a is listed out of node order");
  EXPECT_EQ(refusal("node 1 1 0 1 0\n"), "line 1: nodes must be numbered 0, 1, ... in order");
  EXPECT_EQ(refusal("link 0\n"), "line 1: unknown entry 'link'");
}

}  // namespace
}  // namespace meshbench::testbed
