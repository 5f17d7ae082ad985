// From a rank's slot to the GpuSlot the NCCL backend is made with.
#include <gtest/gtest.h>

#include "bench/nccl_backend.hpp"

namespace meshbench::bench {

namespace {

topology::NodeTopology node(const std::string& host, std::vector<std::string> pcis) {
  topology::NodeTopology n;
  n.hostname = host;
  for (std::size_t i = 0; i < pcis.size(); ++i) {
    topology::Slot s;
    s.index = static_cast<int>(i);
    s.pci = pcis[i];
    s.model = "NVIDIA H200";
    n.slots.push_back(s);
  }
  n.links.assign(pcis.size() * pcis.size(), topology::LinkClass::NVL);
  n.bandwidth_gbps.assign(pcis.size() * pcis.size(), 100.0);
  n.rails.resize(pcis.size());
  return n;
}

}  // namespace

TEST(NcclGpuSlot, SlotIndexAndBusIdOfEachNode) {
  const auto c =
      topology::ClusterTopology::from_nodes({node("a", {"0000:19:00.0", "0000:3b:00.0"}), node("b", {"0000:19:00.0", "0000:4c:00.0"})});
  const GpuSlot g = gpu_slot(c, 3, true);  // node b, its second GPU
  EXPECT_EQ(g.index, 1);
  EXPECT_EQ(g.pci, "0000:4c:00.0");
  EXPECT_EQ(gpu_slot(c, 0, true).pci, "0000:19:00.0");
  EXPECT_EQ(gpu_slot(c, 2, true).index, 0);
}

TEST(NcclGpuSlot, OfflineTopologyGivesIndexOnly) {
  const auto c = topology::ClusterTopology::replicate(node("p5.xml", {"0000:53:00.0", "0000:64:00.0"}), 4);
  const GpuSlot g = gpu_slot(c, 7, false);
  EXPECT_EQ(g.index, 1);
  EXPECT_EQ(g.pci, "");
}

TEST(NcclGpuSlot, CpuSlotHasNoBusId) {
  auto n = node("cpu", {"", ""});
  for (auto& s : n.slots) s.kind = topology::SlotKind::cpu;
  const auto c = topology::ClusterTopology::replicate(n, 1);
  EXPECT_EQ(gpu_slot(c, 1, true).index, 1);
  EXPECT_EQ(gpu_slot(c, 1, true).pci, "");
}

}  // namespace meshbench::bench
