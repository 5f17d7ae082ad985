// NCCL's tuning model as the cost model carries it: the graphs its search would find, the
// algorithm and protocol it picks by size, GPU count, node count and NCCL release, and the
// GPU-slot pricing wired into CostModel (CPU slots keep the α-β profiles).
#include "mapping/nccl_tuning.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

#include "mapping/cost_model.hpp"
#include "mapping/mapping.hpp"
#include "synthetic_nodes.hpp"
#include "topology/catalog.hpp"
#include "topology/machine.hpp"

namespace meshbench::mapping::nccl {

namespace {

// 8 H100 over NVSwitch (18 NVLinks of 20.6 GB/s), one 400 Gb/s network device per GPU.
Communicator h100(int nodes) {
  return {.sm = 90, .ranks = 8 * nodes, .nodes = nodes, .intra_gbps = 370.8, .nvlink = true, .nvswitch = true, .nic_gbps = 50, .nics = 8};
}

constexpr std::uint64_t kMiB = 1ULL << 20;

}  // namespace

TEST(NcclTuning, GraphsFollowTheSearchOnHopper) {
  const Graphs one = graphs_for(h100(1));
  // 6 channels at 60 GB/s fill 370.8 best; duplicated into 12 at 30.
  EXPECT_EQ(one.ring.channels, 12);
  EXPECT_DOUBLE_EQ(one.ring.bw_intra, 30.0);
  // NVLS: one channel per GPU, each loading its head twice: 9 × 40 ≤ 370.8.
  EXPECT_EQ(one.nvls.channels, 8);
  EXPECT_DOUBLE_EQ(one.nvls.bw_intra, 40.0);
  const Graphs two = graphs_for(h100(2));
  // Across nodes a channel runs at the fastest grid speed a 50 GB/s device carries that fits
  // NVLink eight times: 8 × 45.
  EXPECT_EQ(two.ring.channels, 8);
  EXPECT_DOUBLE_EQ(two.ring.bw_inter, 45.0);
  // The tree's intra-node speed may rise towards twice the network's, but 8 × 48 > 370.8.
  EXPECT_DOUBLE_EQ(two.tree.bw_intra, 45.0);
  Communicator a100 = h100(2);
  a100.sm = 80;
  a100.intra_gbps = 240;
  a100.nic_gbps = 12.5;
  a100.nics = 4;
  EXPECT_DOUBLE_EQ(graphs_for(a100).ring.bw_inter, 12.0);
  EXPECT_DOUBLE_EQ(graphs_for(a100).tree.bw_intra, 24.0);
}

TEST(NcclTuning, OneNodePicksLLThenNvlsAsSizesGrow) {
  const Communicator c = h100(1);
  const Choice small = choose(c, Collective::all_reduce, 8);
  EXPECT_EQ(small.algorithm, Algorithm::ring);
  EXPECT_EQ(small.protocol, Protocol::ll);
  const Choice large = choose(c, Collective::all_reduce, 1024 * kMiB);
  EXPECT_EQ(large.algorithm, Algorithm::nvls);
  EXPECT_EQ(large.protocol, Protocol::simple);
  // NVLS's bus bandwidth: 8 channels × min(40 × 0.85 × 7/8 × 2, 60) = 476 GB/s; nccl-tests' busbw
  // at 1 GiB is within its latency of it.
  const double busbw = 1024.0 * kMiB / large.time_us / 1e3 * 2 * 7 / 8;
  EXPECT_GT(busbw, 460);
  EXPECT_LT(busbw, 476);
}

TEST(NcclTuning, NoNvlsWithoutNvswitchHopperOrTheRelease) {
  Communicator ampere = h100(1);
  ampere.sm = 80;
  EXPECT_EQ(choose(ampere, Collective::all_reduce, 1024 * kMiB).algorithm, Algorithm::ring);
  Communicator old = h100(1);
  old.nccl_version = 21603;
  EXPECT_EQ(choose(old, Collective::all_reduce, 1024 * kMiB).algorithm, Algorithm::ring);
  Communicator mesh = h100(1);
  mesh.nvswitch = false;
  EXPECT_EQ(graphs_for(mesh).nvls.channels, 0);
}

TEST(NcclTuning, TwoNodesUseTreesAboveTheRingBound) {
  const Communicator c = h100(2);
  const Choice large = choose(c, Collective::all_reduce, 8192 * kMiB);
  EXPECT_EQ(large.algorithm, Algorithm::nvls_tree);
  const double busbw = 8192.0 * kMiB / large.time_us / 1e3 * 2 * 15 / 16;
  EXPECT_GT(busbw, c.nics * c.nic_gbps);  // above what a ring over 8 devices of 50 GB/s carries
  Communicator old = c;
  old.nccl_version = 21705;  // NVLS tree arrived in 2.18
  EXPECT_NE(choose(old, Collective::all_reduce, 8192 * kMiB).algorithm, Algorithm::nvls_tree);
}

TEST(NcclTuning, PatOnlyWithOneGpuPerNode) {
  Communicator spread = h100(8);
  spread.ranks = 8;  // one GPU on each of 8 nodes
  EXPECT_EQ(choose(spread, Collective::all_gather, 4 * kMiB).algorithm, Algorithm::pat);
  EXPECT_NE(choose(h100(8), Collective::all_gather, 4 * kMiB).algorithm, Algorithm::pat);
  spread.nccl_version = 22203;
  EXPECT_NE(choose(spread, Collective::all_gather, 4 * kMiB).algorithm, Algorithm::pat);
}

TEST(NcclTuning, NetworkLatencyAddsToEveryStepAcrossNodes) {
  Communicator efa = h100(2);
  efa.net_latency_us = 22;
  const Choice ib = choose(h100(2), Collective::all_reduce, 8);
  const Choice slow = choose(efa, Collective::all_reduce, 8);
  // Tree LL on two nodes crosses the network once each way: twice the extra latency.
  EXPECT_NEAR(slow.time_us - ib.time_us, 2 * 22.0, 1e-9);
}

TEST(NcclTuning, FewerChannelsForSmallSizes) {
  const Communicator c = h100(1);
  // Ring LL wants 8 × 8 ranks bytes per thread of 512: 64 KiB fills 2 channels.
  EXPECT_EQ(choose(c, Collective::all_reduce, 64 * 1024).channels, 2);
  EXPECT_EQ(choose(c, Collective::all_reduce, kMiB).channels, 12);
}

TEST(NcclTuning, AllToAllCrossesOneDevicePerGpu) {
  const Communicator one = h100(1), two = h100(2);
  const std::uint64_t bytes = 4096 * kMiB;
  // In a node: 7/8 of the buffer over NVLink at the ring graph's 360 GB/s.
  EXPECT_NEAR(all_to_all(one, bytes).time_us, 7.0 / 8 * bytes / 360e3, 100);
  // Across two nodes: half the buffer leaves over one device at 48 GB/s.
  EXPECT_NEAR(all_to_all(two, bytes).time_us, 0.5 * bytes / 48e3, 200);
  EXPECT_EQ(all_to_all(two, 1024).protocol, Protocol::ll);
}

TEST(NcclTuning, VersionsReadAsNcclPrintsThem) {
  EXPECT_EQ(parse_version("2.18.5"), 21805);
  EXPECT_EQ(parse_version("2.21.5+cuda12.2"), 22105);
  EXPECT_EQ(version_string(22809), "2.28.9");
  EXPECT_FALSE(parse_version("2.18"));
  EXPECT_FALSE(parse_version("v2.18.5"));
  EXPECT_FALSE(parse_version("2.18.5x"));
  CostParams p;
  apply_cost_overrides(p, nlohmann::json{{"nccl_version", "2.16.2"}, {"nccl_tuning", false}}, "test");
  EXPECT_EQ(p.nccl_version, 21602);
  EXPECT_FALSE(p.nccl_tuning);
  EXPECT_THROW(apply_cost_overrides(p, nlohmann::json{{"nccl_version", 2.18}}, "test"), InputError);
}

TEST(NcclTuning, CostModelPricesGpuGroupsWithItAndCpuSlotsWithoutIt) {
  const auto gpus = topology::ClusterTopology::replicate(
      topology::build_gpu_node(topology::machine_from_node_type(topology::find_node_type("p5.48xlarge"))), 2);
  const Layout layout{.world = 16, .tp = 8};
  std::vector<int> identity(16);
  for (int i = 0; i < 16; ++i) identity[static_cast<std::size_t>(i)] = i;
  const CostModel nccl(gpus, default_cost_params(gpus));
  const auto tp = nccl.score(layout, flat_rank_groups(layout), identity).of(Dim::tp);
  EXPECT_EQ(nccl.op_estimate(tp, Op::all_reduce, 1024 * kMiB).algorithm, "nvls");
  EXPECT_EQ(nccl.op_estimate(tp, Op::all_reduce, 8).protocol, "LL");
  EXPECT_EQ(nccl.op_estimate(tp, Op::all_to_all, 8 * kMiB).algorithm, "p2p");
  CostParams off = default_cost_params(gpus);
  off.nccl_tuning = false;
  const CostModel alpha_beta(gpus, off);
  EXPECT_EQ(alpha_beta.op_estimate(alpha_beta.score(layout, flat_rank_groups(layout), identity).of(Dim::tp), Op::all_reduce, 8).algorithm,
            "alpha-beta");
  const auto cpus = topology::ClusterTopology::replicate(
      testing::make_node({.gpus = 4, .nics = 1, .nic_gbps = 1.25, .nvl_gbps = 0, .numa = 1, .nvlink = false}), 2);
  auto cpu_node = cpus.layout(0);
  for (auto& s : cpu_node.slots) s.kind = topology::SlotKind::cpu;
  const auto cpu_cluster = topology::ClusterTopology::replicate(cpu_node, 2);
  const CostModel cpu(cpu_cluster, default_cost_params(cpu_cluster));
  const Layout four{.world = 8, .tp = 4};
  std::vector<int> eight(8);
  for (int i = 0; i < 8; ++i) eight[static_cast<std::size_t>(i)] = i;
  EXPECT_EQ(cpu.op_estimate(cpu.score(four, flat_rank_groups(four), eight).of(Dim::tp), Op::all_reduce, 8).algorithm, "alpha-beta");
}

}  // namespace meshbench::mapping::nccl
