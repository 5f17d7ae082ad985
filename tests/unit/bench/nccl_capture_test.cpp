#include "bench/nccl_capture.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace meshbench::bench {
namespace {

// One process's NCCL_DEBUG=INFO log with two communicators made in this order: the first
// (a TP group inside a node) connects over P2P, the second (a DP group across nodes) over the
// network with GPUDirect RDMA.
constexpr const char* kLog = R"(node-a:101:101 [0] NCCL INFO NCCL version 2.28.9+cuda13.0
node-a:101:101 [0] NCCL INFO ncclCommInitRank comm 0x11 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 53000 commId 0xaaaa - Init START
node-a:101:120 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
node-a:101:120 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read
node-a:101:101 [0] NCCL INFO ncclCommInitRank comm 0x11 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 53000 commId 0xaaaa - Init COMPLETE
node-a:101:101 [0] NCCL INFO ncclCommInitRank comm 0x22 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 53000 commId 0xbbbb - Init START
node-a:101:121 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Libfabric/0/GDRDMA
node-a:101:121 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Libfabric/0/GDRDMA
node-a:101:101 [0] NCCL INFO ncclCommInitRank comm 0x22 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 53000 commId 0xbbbb - Init COMPLETE
)";

TEST(NcclCapture, TransportsPerCommunicatorInCreationOrder) {
  std::istringstream in(kLog);
  const auto comms = communicator_transports(analysis::parse_nccl_log(in));
  ASSERT_EQ(comms.size(), 2U);
  EXPECT_EQ(comms[0], (std::set<std::string>{"P2P"}));
  EXPECT_EQ(comms[1], (std::set<std::string>{"NET/GDRDMA"}));
}

TEST(NcclCapture, RanksCountedPerMappingDimensionAndTransport) {
  const std::vector<std::pair<std::string, std::string>> created = {{"m1", "tp"}, {"m1", "dp"}};
  // Rank 0 and 1 saw P2P for tp; for dp rank 0 saw the network, rank 1 shared memory too.
  const std::vector<std::vector<std::set<std::string>>> per_rank = {{{"P2P"}, {"NET/GDRDMA"}}, {{"P2P"}, {"NET/GDRDMA", "SHM"}}};
  const auto uses = transport_uses(created, per_rank);
  ASSERT_EQ(uses.size(), 3U);
  EXPECT_EQ(uses[0].mapping, "m1");
  EXPECT_EQ(uses[0].dim, "tp");
  EXPECT_EQ(uses[0].transport, "P2P");
  EXPECT_EQ(uses[0].ranks, 2);
  EXPECT_EQ(uses[1].dim, "dp");
  EXPECT_EQ(uses[1].transport, "NET/GDRDMA");
  EXPECT_EQ(uses[1].ranks, 2);
  EXPECT_EQ(uses[2].transport, "SHM");
  EXPECT_EQ(uses[2].ranks, 1);
}

TEST(NcclCapture, EncodingRoundTrips) {
  const std::vector<std::set<std::string>> comms = {{"P2P", "SHM"}, {}, {"NET"}};
  EXPECT_EQ(decode_transports(encode_transports(comms)), comms);
}

}  // namespace
}  // namespace meshbench::bench
