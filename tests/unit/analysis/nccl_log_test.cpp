#include <gtest/gtest.h>

#include <sstream>

#include "analysis/logs/nccl_log.hpp"

namespace meshbench::analysis {
namespace {

// A 4-rank, 2-node job on EFA in NCCL's line formats (NCCL 2.27, aws-ofi-nccl
// 1.16), with a second 2-rank communicator on node-a interleaved on another thread.
constexpr const char* kEfaLog = R"(NCCL version 2.27.7+cuda12.9
node-a:1001:1001 [0] NCCL INFO cudaDriverVersion 12090
node-a:1001:1001 [0] NCCL INFO NET/Plugin: Loaded net plugin Libfabric (v9)
node-a:1001:1001 [0] NCCL INFO NET/OFI Initializing aws-ofi-nccl 1.16.3
node-a:1001:1001 [0] NCCL INFO NET/OFI Using Libfabric version 1.22
node-a:1001:1001 [0] NCCL INFO NET/OFI Plugin selected platform: AWS
node-a:1001:1001 [0] NCCL INFO NET/OFI Selected provider is efa, fabric is efa (found 16 nics)
node-a:1001:1001 [0] NCCL INFO NET/OFI Using transport protocol RDMA
node-a:1001:1001 [0] NCCL INFO Using network Libfabric
node-a:1001:1010 [0] NCCL INFO ncclCommInitRankConfig comm 0x55aa00 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 101c0 commId 0xabc123 - Init START
node-a:1001:1010 [0] NCCL INFO NVLS multicast support is available on dev 0
node-a:1001:1010 [0] NCCL INFO comm 0x55aa00 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0
node-a:1001:1011 [0] NCCL INFO ncclCommInitRankConfig comm 0x99ee00 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 101c0 commId 0xdef456 - Init START
node-a:1001:1010 [0] NCCL INFO Channel 00/02 :    0   1   2   3
node-a:1001:1010 [0] NCCL INFO Channel 01/02 :    0   1   2   3
node-a:1001:1011 [0] NCCL INFO comm 0x99ee00 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0
node-a:1001:1010 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC
node-a:1001:1011 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
node-a:1001:1010 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/IPC
node-a:1001:1010 [0] NCCL INFO Channel 00/0 : 3[1] -> 0[0] [receive] via NET/Libfabric/0/GDRDMA
node-a:1001:1010 [0] NCCL INFO Channel 01/0 : 3[1] -> 0[0] [receive] via NET/Libfabric/0/GDRDMA
node-a:1001:1010 [0] NCCL INFO 2 coll channels, 0 collnet channels, 0 nvls channels, 2 p2p channels, 2 p2p channels per peer
node-a:1001:1010 [0] NCCL INFO ncclCommInitRankConfig comm 0x55aa00 rank 0 nranks 4 cudaDev 0 nvmlDev 0 busId 101c0 commId 0xabc123 - Init COMPLETE
node-a:1001:1011 [0] NCCL INFO ncclCommInitRankConfig comm 0x99ee00 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 101c0 commId 0xdef456 - Init COMPLETE
node-a:1002:1020 [1] NCCL INFO comm 0x66bb00 rank 1 nRanks 4 nNodes 2 localRanks 2 localRank 1 MNNVL 0
node-a:1002:1020 [1] NCCL INFO Channel 00/0 : 1[1] -> 2[0] [send] via NET/Libfabric/1/GDRDMA
node-a:1002:1020 [1] NCCL INFO ncclCommInitRankConfig comm 0x66bb00 rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId 201c0 commId 0xabc123 - Init COMPLETE
node-b:2001:2010 [0] NCCL INFO comm 0x77cc00 rank 2 nRanks 4 nNodes 2 localRanks 2 localRank 0 MNNVL 0
node-b:2001:2010 [0] NCCL INFO NVLS multicast support is not available on dev 0
node-b:2001:2010 [0] NCCL INFO Channel 00/0 : 2[0] -> 3[1] via SHM/direct/direct
node-b:2001:2010 [0] NCCL INFO ncclCommInitRankConfig comm 0x77cc00 rank 2 nranks 4 cudaDev 0 nvmlDev 0 busId 101c0 commId 0xabc123 - Init COMPLETE
node-b:2002:2020 [1] NCCL INFO comm 0x88dd00 rank 3 nRanks 4 nNodes 2 localRanks 2 localRank 1 MNNVL 0
node-b:2002:2020 [1] NCCL INFO Channel 00/0 : 3[1] -> 0[0] [send] via NET/Socket/0
node-b:2002:2020 [1] NCCL INFO ncclCommInitRankConfig comm 0x88dd00 rank 3 nranks 4 cudaDev 1 nvmlDev 1 busId 201c0 commId 0xabc123 - Init COMPLETE
#  size  count  type  redop  root  time  algbw  busbw  #wrong

[2025-03-04 10:11:12] node-b:2002:2020 [1] transport/net.cc:1234 (sendProxyProgress) NCCL WARN NET/OFI Request completed with error
node-b:2002:2020 [1] misc/socket.cc:50 NCCL WARN Net : Connection closed by remote peer
)";

NcclLogSummary parse_log(const std::string& text) {
  std::istringstream in(text);
  return parse_nccl_log(in);
}

TEST(NcclLogLine, InfoLineSplitsHostPidTidDevice) {
  auto l = parse_nccl_line("ip-10-1-2-3:4242:4250 [3] NCCL INFO Using network Libfabric");
  ASSERT_TRUE(l);
  EXPECT_EQ(l->host, "ip-10-1-2-3");
  EXPECT_EQ(l->pid, 4242);
  EXPECT_EQ(l->tid, 4250);
  EXPECT_EQ(l->dev, "3");
  EXPECT_EQ(l->level, "INFO");
  EXPECT_EQ(l->message, "Using network Libfabric");
}

TEST(NcclLogLine, WarnLineOldAndNewForms) {
  auto old_form = parse_nccl_line("h:1:2 [0] misc/socket.cc:50 NCCL WARN Net : Connection closed by remote peer");
  ASSERT_TRUE(old_form);
  EXPECT_EQ(old_form->level, "WARN");
  EXPECT_EQ(old_form->location, "misc/socket.cc:50");
  EXPECT_EQ(old_form->message, "Net : Connection closed by remote peer");
  auto new_form = parse_nccl_line("h:1:2 [0] transport/net.cc:1234 (sendProxyProgress) NCCL WARN boom");
  ASSERT_TRUE(new_form);
  EXPECT_EQ(new_form->location, "transport/net.cc:1234");
  EXPECT_EQ(new_form->message, "boom");
}

TEST(NcclLogLine, TimestampAndLauncherPrefixesAreSkipped) {
  auto ts = parse_nccl_line("[2025-03-04 10:11:12.123456] h:1:2 [0] NCCL INFO x");
  ASSERT_TRUE(ts);
  EXPECT_EQ(ts->timestamp, "2025-03-04 10:11:12.123456");
  EXPECT_EQ(ts->host, "h");
  auto mpirun = parse_nccl_line("[1,3]<stdout>:h:1:2 [0] NCCL INFO Using network IB");
  ASSERT_TRUE(mpirun);
  EXPECT_EQ(mpirun->message, "Using network IB");
  auto srun = parse_nccl_line("12: h:1:2 [0] NCCL INFO Using network Socket");
  ASSERT_TRUE(srun);
  EXPECT_EQ(srun->message, "Using network Socket");
  auto version = parse_nccl_line("NCCL version 2.13.4+cuda11.7");
  ASSERT_TRUE(version);
  EXPECT_EQ(version->level, "VERSION");
}

TEST(NcclLogLine, OtherLinesAreNotNccl) {
  EXPECT_FALSE(parse_nccl_line("#  size  count  type"));
  EXPECT_FALSE(parse_nccl_line("h:1:2 [0] something else"));
  EXPECT_FALSE(parse_nccl_line(""));
  EXPECT_FALSE(parse_nccl_line("2025-01-01 meshbench: starting"));
}

TEST(NcclLogTransport, ClassifiesEveryViaForm) {
  EXPECT_EQ(classify_nccl_transport("P2P/IPC"), NcclTransport::p2p);
  EXPECT_EQ(classify_nccl_transport("P2P/CUMEM/read"), NcclTransport::p2p);
  EXPECT_EQ(classify_nccl_transport("P2P/direct pointer"), NcclTransport::p2p);
  EXPECT_EQ(classify_nccl_transport("P2P/indirect/2[2]"), NcclTransport::p2p);
  EXPECT_EQ(classify_nccl_transport("P2P/MNNVL"), NcclTransport::p2p_mnnvl);
  EXPECT_EQ(classify_nccl_transport("SHM/direct/direct"), NcclTransport::shm);
  EXPECT_EQ(classify_nccl_transport("NET/Libfabric/0/GDRDMA"), NcclTransport::net_gdrdma);
  EXPECT_EQ(classify_nccl_transport("NET/IB/0(1)/GDRDMA"), NcclTransport::net_gdrdma);
  EXPECT_EQ(classify_nccl_transport("NET/Socket/0"), NcclTransport::net);
  EXPECT_EQ(classify_nccl_transport("NET/AWS Libfabric/3(proxy)"), NcclTransport::net);
  EXPECT_EQ(classify_nccl_transport("NVLS"), NcclTransport::other);
}

TEST(NcclLogSummary, VersionPluginProviderAndNvls) {
  const auto s = parse_log(kEfaLog);
  EXPECT_EQ(s.nccl_version, "2.27.7");
  EXPECT_EQ(s.nccl_cuda, "12.9");
  EXPECT_EQ(s.cuda_driver, "12090");
  ASSERT_EQ(s.net_plugins.size(), 1U);
  EXPECT_EQ(s.net_plugins.front(), "Libfabric (v9)");
  EXPECT_EQ(s.networks, std::set<std::string>{"Libfabric"});
  EXPECT_EQ(s.ofi_plugin_version, "1.16.3");
  EXPECT_EQ(s.ofi_libfabric_version, "1.22");
  EXPECT_EQ(s.ofi_provider, "efa");
  EXPECT_EQ(s.ofi_fabric, "efa");
  EXPECT_EQ(s.ofi_nics, 16);
  EXPECT_EQ(s.ofi_platform, "AWS");
  EXPECT_EQ(s.ofi_protocol, "RDMA");
  EXPECT_EQ(s.nvls_available, 1);
  EXPECT_EQ(s.nvls_unavailable, 1);
  EXPECT_EQ(s.hosts, (std::set<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(s.processes.size(), 4U);
}

TEST(NcclLogSummary, OldProviderSpellingMatchesCaseInsensitively) {
  const auto s = parse_log("h:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa\n");
  EXPECT_EQ(s.ofi_provider, "efa");
  EXPECT_EQ(s.ofi_nics, -1);
}

TEST(NcclLogSummary, CommunicatorsJoinedByCommIdWithTransportsPerPair) {
  const auto s = parse_log(kEfaLog);
  ASSERT_EQ(s.communicators.size(), 2U);
  const auto& world = s.communicators[0];
  EXPECT_EQ(world.comm_id, "0xabc123");
  EXPECT_EQ(world.nranks, 4);
  EXPECT_EQ(world.nnodes, 2);
  EXPECT_EQ(world.ranks_seen, (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(world.hosts, (std::set<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(world.init_complete, 4);
  EXPECT_EQ(world.coll_channels, 2);
  EXPECT_EQ(world.p2p_channels, 2);
  EXPECT_EQ(world.transport_counts.at(NcclTransport::p2p), 2);
  EXPECT_EQ(world.transport_counts.at(NcclTransport::net_gdrdma), 3);
  EXPECT_EQ(world.transport_counts.at(NcclTransport::shm), 1);
  EXPECT_EQ(world.transport_counts.at(NcclTransport::net), 1);
  EXPECT_EQ(world.pairs.at({0, 1}), std::set<NcclTransport>{NcclTransport::p2p});
  EXPECT_EQ(world.pairs.at({3, 0}), (std::set<NcclTransport>{NcclTransport::net, NcclTransport::net_gdrdma}));
  EXPECT_EQ(world.pairs.at({2, 3}), std::set<NcclTransport>{NcclTransport::shm});

  const auto& tp = s.communicators[1];
  EXPECT_EQ(tp.comm_id, "0xdef456");
  EXPECT_EQ(tp.nranks, 2);
  EXPECT_EQ(tp.transport_counts.at(NcclTransport::p2p), 1);
  EXPECT_EQ(tp.transport_counts.size(), 1U);

  EXPECT_EQ(s.transport_counts.at(NcclTransport::p2p), 3);
  EXPECT_EQ(s.transport_counts.at(NcclTransport::net_gdrdma), 3);
}

TEST(NcclLogSummary, TransportsUsedBySelectedGroup) {
  const auto s = parse_log(kEfaLog);
  EXPECT_EQ(transports_used(s, [](const NcclCommunicator& c) { return c.nranks == 2; }), std::set<NcclTransport>{NcclTransport::p2p});
  EXPECT_EQ(transports_used(s, [](const NcclCommunicator& c) { return c.nnodes == 2; }),
            (std::set<NcclTransport>{NcclTransport::p2p, NcclTransport::shm, NcclTransport::net, NcclTransport::net_gdrdma}));
  EXPECT_EQ(transports_used(s).size(), 4U);
}

TEST(NcclLogSummary, WarningsKeepTimestampAndLocation) {
  const auto s = parse_log(kEfaLog);
  ASSERT_EQ(s.warnings.size(), 2U);
  EXPECT_EQ(s.warnings[0].timestamp, "2025-03-04 10:11:12");
  EXPECT_EQ(s.warnings[0].location, "transport/net.cc:1234");
  EXPECT_EQ(s.warnings[0].message, "NET/OFI Request completed with error");
  EXPECT_EQ(s.warnings[1].host, "node-b");
  EXPECT_EQ(s.warnings[1].pid, 2002);
}

// NCCL before 2.18 printed "comm %p ... - Init COMPLETE" only after the channel lines and no commId.
TEST(NcclLogSummary, OldLogsAttributeEarlierChannelsToTheCommNamedAtInitComplete) {
  const auto s = parse_log(
      "NCCL version 2.13.4+cuda11.7\n"
      "m:16194:18581 [1] NCCL INFO Channel 00 : 9[1b000] -> 10[1c000] via P2P/IPC\n"
      "m:16194:18581 [1] NCCL INFO Channel 01 : 9[1b000] -> 10[1c000] via P2P/IPC\n"
      "m:16194:18581 [1] NCCL INFO 6 coll channels, 8 p2p channels, 1 p2p channels per peer\n"
      "m:16194:18581 [1] NCCL INFO comm 0x7f4b34006640 rank 9 nranks 16 cudaDev 1 busId 1b000 - Init COMPLETE\n");
  ASSERT_EQ(s.communicators.size(), 1U);
  const auto& c = s.communicators.front();
  EXPECT_EQ(c.comm_id, "m:16194:0x7f4b34006640");
  EXPECT_EQ(c.nranks, 16);
  EXPECT_EQ(c.init_complete, 1);
  EXPECT_EQ(c.coll_channels, 6);
  EXPECT_EQ(c.p2p_channels, 8);
  EXPECT_EQ(c.transport_counts.at(NcclTransport::p2p), 2);
  EXPECT_EQ(s.nccl_version, "2.13.4");
}

// meshbench destroys a dimension's communicator before it makes the next: the allocator often
// hands the next one the same address. Each "Init START" begins a new communicator.
TEST(NcclLogSummary, ReusedAddressGivesTwoCommunicators) {
  const std::string first =
      "h:7:7 [0] NCCL INFO ncclCommInitRankConfig comm 0x5500 rank 0 nranks 2 cudaDev 0 busId 101c0 commId 0xaaa - Init START\n"
      "h:7:7 [0] NCCL INFO comm 0x5500 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
      "h:7:7 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
      "h:7:7 [0] NCCL INFO ncclCommInitRankConfig comm 0x5500 rank 0 nranks 2 cudaDev 0 busId 101c0 commId 0xaaa - Init COMPLETE\n"
      "h:7:7 [0] NCCL INFO comm 0x5500 rank 0 nranks 2 cudaDev 0 busId 101c0 - Destroy COMPLETE\n";
  const std::string second =
      "h:7:7 [0] NCCL INFO ncclCommInitRankConfig comm 0x5500 rank 1 nranks 4 cudaDev 0 busId 101c0 commId 0xbbb - Init START\n"
      "h:7:7 [0] NCCL INFO comm 0x5500 rank 1 nRanks 4 nNodes 2 localRanks 2 localRank 1 MNNVL 0\n"
      "h:7:7 [0] NCCL INFO Channel 00/0 : 1[0] -> 2[0] [send] via NET/Socket/0\n"
      "h:7:7 [0] NCCL INFO ncclCommInitRankConfig comm 0x5500 rank 1 nranks 4 cudaDev 0 busId 101c0 commId 0xbbb - Init COMPLETE\n";
  const auto s = parse_log(first + second);
  ASSERT_EQ(s.communicators.size(), 2U);
  EXPECT_EQ(s.communicators[0].comm_id, "0xaaa");
  EXPECT_EQ(s.communicators[0].nranks, 2);
  EXPECT_EQ(s.communicators[0].transport_counts, (std::map<NcclTransport, int>{{NcclTransport::p2p, 1}}));
  EXPECT_EQ(s.communicators[1].comm_id, "0xbbb");
  EXPECT_EQ(s.communicators[1].nranks, 4);
  EXPECT_EQ(s.communicators[1].transport_counts, (std::map<NcclTransport, int>{{NcclTransport::net, 1}}));
  EXPECT_EQ(s.communicators[1].init_complete, 1);

  // Without commIds the address alone told them apart, and they merged.
  std::string no_ids = first + second;
  for (const std::string id : {" commId 0xaaa", " commId 0xbbb"}) {
    for (auto at = no_ids.find(id); at != std::string::npos; at = no_ids.find(id)) no_ids.erase(at, id.size());
  }
  const auto t = parse_log(no_ids);
  ASSERT_EQ(t.communicators.size(), 2U);
  EXPECT_EQ(t.communicators[0].transport_counts.size(), 1U);
  EXPECT_EQ(t.communicators[0].transport_counts.count(NcclTransport::p2p), 1U);
  EXPECT_EQ(t.communicators[1].transport_counts.count(NcclTransport::net), 1U);
  EXPECT_EQ(t.communicators[1].nnodes, 2);
}

TEST(NcclLogSummary, NoPluginAndSocketNetwork) {
  const auto s = parse_log(
      "h:1:1 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so), using internal implementation\n"
      "h:1:1 [0] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
      "h:1:1 [0] NCCL INFO Using network Socket\n");
  EXPECT_EQ(s.net_plugins, std::vector<std::string>{"none (internal)"});
  EXPECT_EQ(s.networks, std::set<std::string>{"Socket"});
  EXPECT_EQ(s.nccl_version, "2.18.3");
}

TEST(NcclLogSummary, JsonCarriesCommunicatorsAndPairs) {
  const auto j = to_json(parse_log(kEfaLog));
  EXPECT_EQ(j.at("nccl_version"), "2.27.7");
  EXPECT_EQ(j.at("ofi").at("provider"), "efa");
  EXPECT_EQ(j.at("communicators").size(), 2U);
  EXPECT_EQ(j.at("communicators")[0].at("pairs").at("3->0"), (nlohmann::json{"NET", "NET/GDRDMA"}));
  EXPECT_EQ(j.at("transports").at("SHM"), 1);
  EXPECT_EQ(j.at("warnings").size(), 2U);
}

}  // namespace
}  // namespace meshbench::analysis
