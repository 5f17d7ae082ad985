// NCCL's tables computed once per communicator (nccl::Tuned, what the cost model keeps in each
// DimShape) price every size exactly as the functions that search the graphs on each call.
#include <gtest/gtest.h>

#include <vector>

#include "mapping/cost_model.hpp"
#include "mapping/mapping.hpp"
#include "mapping/nccl_tuning.hpp"
#include "synthetic_nodes.hpp"

namespace meshbench::mapping::nccl {
namespace {

// Hopper and Blackwell on NVSwitch, Ampere, PCIe-only GPUs; one to 16 nodes; NICs slow and fast;
// releases before NVLS, before PAT and the model's own.
std::vector<Communicator> communicators() {
  std::vector<Communicator> out;
  for (int sm : {80, 90, 100}) {
    for (int nodes : {1, 2, 4, 16}) {
      for (int ppn : {1, 2, 8}) {
        for (bool nvlink : {true, false}) {
          for (int version : {21605, 22203, 22809}) {
            out.push_back({.sm = sm,
                           .ranks = nodes * ppn,
                           .nodes = nodes,
                           .intra_gbps = nvlink ? 370.8 : 24,
                           .nvlink = nvlink,
                           .nvswitch = nvlink,
                           .nic_gbps = nodes > 1 ? (sm == 80 ? 25.0 : 50.0) : 0,
                           .nics = nodes > 1 ? 8 : 0,
                           .amd_cpu = version == 22203,
                           .net_latency_us = sm == 90 ? 22.0 : 0.0,
                           .nccl_version = version});
          }
        }
      }
    }
  }
  return out;
}

TEST(NcclTuned, PricesEverySizeToTheBitAsTheSearchOnEachCall) {
  int compared = 0;
  for (const Communicator& c : communicators()) {
    const Tuned t = tuned(c);
    EXPECT_EQ(t.comm, c);
    for (Collective coll : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter}) {
      for (std::uint64_t bytes = 8; bytes <= (16ULL << 30); bytes *= 2) {
        const Choice fresh = choose(c, coll, bytes), kept = choose(t, coll, bytes);
        ASSERT_EQ(kept.algorithm, fresh.algorithm) << c.ranks << " ranks, " << c.nodes << " nodes, " << bytes << " B";
        ASSERT_EQ(kept.protocol, fresh.protocol);
        ASSERT_EQ(kept.channels, fresh.channels);
        ASSERT_EQ(kept.time_us, fresh.time_us);  // exactly: the same arithmetic on the same tables
        ++compared;
      }
    }
    for (std::uint64_t bytes = 8; bytes <= (16ULL << 30); bytes *= 2) {
      ASSERT_EQ(all_to_all(t, bytes).time_us, all_to_all(c, bytes).time_us);
      ASSERT_EQ(all_to_all(t, bytes).protocol, all_to_all(c, bytes).protocol);
      ASSERT_EQ(send_recv(t, bytes).time_us, send_recv(c, bytes).time_us);
      ASSERT_EQ(send_recv(t, bytes).protocol, send_recv(c, bytes).protocol);
    }
  }
  EXPECT_GT(compared, 10000);
}

TEST(NcclTuned, TheCostModelKeepsOneTunedCommunicatorPerDistinctGroup) {
  // 2 × p5, TP8 over the 16 GPUs' two nodes: both tp groups are alike, so one communicator.
  const auto topo = topology::ClusterTopology::replicate(testing::p5_node(), 2);
  const Layout l{.world = 16, .tp = 8};
  std::vector<int> identity(16);
  for (int i = 0; i < 16; ++i) identity[static_cast<std::size_t>(i)] = i;
  const CostModel model(topo, default_cost_params(topo));
  const Score score = model.score(l, flat_rank_groups(l), identity);
  const DimShape& tp = score.of(Dim::tp);
  ASSERT_EQ(tp.gpu_shared.size(), 1U);
  ASSERT_EQ(tp.gpu_alone.size(), 1U);
  for (std::uint64_t bytes = 8; bytes <= (8ULL << 30); bytes *= 2) {
    const Choice c = choose(tp.gpu_shared.front().comm, Collective::all_reduce, bytes);
    const OpEstimate e = model.op_estimate(tp, Op::all_reduce, bytes);
    EXPECT_EQ(e.time_us, c.time_us) << bytes;
    EXPECT_EQ(e.algorithm, to_string(c.algorithm)) << bytes;
  }
}

}  // namespace
}  // namespace meshbench::mapping::nccl
