// CPU slots (MPI ranks) of one node are priced as shared memory, not as the PCIe or NCCL path
// bandwidth their topology carries: the defaults docs/mapping.md ("CPU slots: shared memory")
// gives and measures.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "mapping/cost_model.hpp"
#include "mapping/cost_params.hpp"
#include "mapping/mapping.hpp"
#include "synthetic_nodes.hpp"
#include "topology/machine.hpp"

namespace meshbench::mapping {
namespace {

using topology::LinkClass;

constexpr double kDocShmGbps = 2.5;  // the figure docs/mapping.md gives
constexpr double kDocShmAlphaUs = 1.0;

// A node without GPUs as live discovery describes it: `sockets` NUMA nodes of one Intel
// generation, one virtual NIC of 1 Gbit/s, and `slots_per_socket` CPU slots on each.
topology::NodeTopology cpu_slots_node(int sockets, int slots_per_socket) {
  topology::Machine m;
  m.name = "cpu";
  for (int s = 0; s < sockets; ++s) m.cpus.push_back({s, "x86_64", "GenuineIntel", 6, 0x55, "Xeon"});
  topology::PciDevice nic;
  nic.kind = topology::PciKind::nic;
  nic.cpu = -1;
  nic.nic_kind = topology::NicKind::eth;
  nic.ports.push_back(topology::NetPort{"eth0", -1, 0.125});
  m.pci.push_back(nic);
  std::vector<int> numa;
  for (int s = 0; s < sockets; ++s) numa.insert(numa.end(), static_cast<std::size_t>(slots_per_socket), s);
  return topology::build_cpu_node(m, numa);
}

TEST(CpuSlotDefaults, ANodesCpuSlotsArePricedAsSharedMemoryNotTheirPathBandwidth) {
  const auto topo = topology::ClusterTopology::replicate(cpu_slots_node(1, 2), 2);
  ASSERT_EQ(topo.layout(0).link(0, 1), LinkClass::PHB);
  ASSERT_GT(topo.layout(0).bandwidth(0, 1), 1000.0);  // NCCL's LOC_BW, what the topology shows
  const CostParams p = default_cost_params(topo);
  EXPECT_DOUBLE_EQ(p[LinkClass::PHB].bandwidth_gbps, kDocShmGbps);
  EXPECT_DOUBLE_EQ(p[LinkClass::PHB].alpha_us, kDocShmAlphaUs);
  EXPECT_DOUBLE_EQ(p[LinkClass::NET].bandwidth_gbps, 0.125);  // the NIC's line rate, as before

  // A 2-rank all-reduce in a node: 2 steps of alpha, bytes · 2·1/2 at the shared-memory rate.
  const Layout tp2{.world = 4, .tp = 2};
  const CostModel model(topo, p);
  const std::vector<int> slots{0, 1, 2, 3};
  const Score s = model.score(tp2, flat_rank_groups(tp2), slots);
  EXPECT_FALSE(s.of(Dim::tp).crosses_nodes);
  EXPECT_NEAR(model.op_time_us(s.of(Dim::tp), Op::all_reduce, 3'000'000), 2 * kDocShmAlphaUs + 3'000'000 / (kDocShmGbps * 1e3), 1e-6);
}

TEST(CpuSlotDefaults, AcrossSocketsTheSlowerOfSharedMemoryAndTheSocketLink) {
  const auto topo = topology::ClusterTopology::replicate(cpu_slots_node(2, 1), 1);
  ASSERT_EQ(topo.layout(0).link(0, 1), LinkClass::SYS);
  const CostParams p = default_cost_params(topo);
  EXPECT_DOUBLE_EQ(p[LinkClass::SYS].bandwidth_gbps, std::min(kDocShmGbps, topo.layout(0).bandwidth(0, 1)));
  EXPECT_DOUBLE_EQ(p[LinkClass::SYS].alpha_us, kDocShmAlphaUs);
}

TEST(CpuSlotDefaults, GpuSlotsKeepTheirPathBandwidth) {
  const auto gpu = testing::make_node({.gpus = 4, .nics = 4, .nvlink = false, .gpus_per_switch = 2});
  const CostParams p = default_cost_params(topology::ClusterTopology::replicate(gpu, 1));
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a != b) {
        EXPECT_DOUBLE_EQ(p[gpu.link(a, b)].bandwidth_gbps, gpu.bandwidth(a, b)) << a << "-" << b;
      }
    }
  }
}

}  // namespace
}  // namespace meshbench::mapping
