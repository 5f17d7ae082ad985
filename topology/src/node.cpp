#include "topology/node.hpp"

namespace meshbench::topology {

std::string_view to_string(SlotKind kind) { return kind == SlotKind::gpu ? "gpu" : "cpu"; }

std::string_view to_string(NicKind kind) {
  switch (kind) {
    case NicKind::efa: return "efa";
    case NicKind::ib: return "ib";
    case NicKind::eth: return "eth";
    case NicKind::other: return "other";
  }
  return "other";
}

double NodeTopology::rail_bandwidth_gbps(int slot) const {
  double total = 0;
  for (int nic : rails[static_cast<std::size_t>(slot)]) total += nics[static_cast<std::size_t>(nic)].speed_gbps;
  return total;
}

double NodeTopology::nic_bandwidth_gbps() const {
  double total = 0;
  for (const auto& nic : nics) total += nic.speed_gbps;
  return total;
}

bool NodeTopology::same_layout(const NodeTopology& o) const {
  if (slots.size() != o.slots.size() || nics.size() != o.nics.size()) return false;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const auto &a = slots[i], &b = o.slots[i];
    if (a.kind != b.kind || a.pci != b.pci || a.numa != b.numa || a.model != b.model || a.pci_switch != b.pci_switch) return false;
  }
  for (std::size_t i = 0; i < nics.size(); ++i) {
    const auto &a = nics[i], &b = o.nics[i];
    if (a.kind != b.kind || a.pci != b.pci || a.numa != b.numa || a.speed_gbps != b.speed_gbps || a.name != b.name) return false;
  }
  return links == o.links && bandwidth_gbps == o.bandwidth_gbps && rails == o.rails && numa_nodes == o.numa_nodes &&
         node_type == o.node_type && cpu == o.cpu;
}

}  // namespace meshbench::topology
