#include "topology/src/layout_diff.hpp"

#include <cstdio>
#include <vector>

#include "common/strings.hpp"

namespace meshbench::topology {

namespace {

std::string general_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string slots_text(const NodeTopology& n) {
  const std::string kind = n.slots.empty() ? "" : std::string(to_string(n.slots.front().kind)) + " ";
  return std::to_string(n.slot_count()) + " " + kind + "slots";
}

}  // namespace

std::string describe_layout_difference(const NodeTopology& a, const NodeTopology& b) {
  std::vector<std::string> parts;
  if (a.node_type != b.node_type) parts.push_back("node type '" + b.node_type + "' vs '" + a.node_type + "'");
  if (a.slot_count() != b.slot_count() || (!a.slots.empty() && !b.slots.empty() && a.slots[0].kind != b.slots[0].kind)) {
    parts.push_back(slots_text(b) + " vs " + slots_text(a));
  } else {
    for (std::size_t i = 0; i < a.slots.size(); ++i) {
      if (a.slots[i].model != b.slots[i].model) {
        parts.push_back("slot " + std::to_string(i) + " is " + b.slots[i].model + " vs " + a.slots[i].model);
        break;
      }
    }
    for (std::size_t i = 0; i < a.slots.size(); ++i) {
      if (a.slots[i].numa != b.slots[i].numa || a.slots[i].pci != b.slots[i].pci || a.slots[i].pci_switch != b.slots[i].pci_switch) {
        parts.push_back("slot " + std::to_string(i) + " sits elsewhere (PCI " + b.slots[i].pci + " NUMA " +
                        std::to_string(b.slots[i].numa) + " vs PCI " + a.slots[i].pci + " NUMA " + std::to_string(a.slots[i].numa) + ")");
        break;
      }
    }
    if (a.links != b.links) {
      for (int x = 0; x < a.slot_count() && parts.size() < 8; ++x) {
        for (int y = 0; y < a.slot_count(); ++y) {
          if (a.link(x, y) != b.link(x, y)) {
            parts.push_back("slots " + std::to_string(x) + "-" + std::to_string(y) + " " + std::string(to_string(b.link(x, y))) + " vs " +
                            std::string(to_string(a.link(x, y))));
            x = a.slot_count();
            break;
          }
        }
      }
    } else if (a.bandwidth_gbps != b.bandwidth_gbps) {
      parts.emplace_back("link bandwidths differ");
    }
    if (a.rails != b.rails) parts.emplace_back("rails differ");
  }
  if (a.nics.size() != b.nics.size()) {
    parts.push_back(std::to_string(b.nics.size()) + " NICs vs " + std::to_string(a.nics.size()));
  } else if (a.nic_bandwidth_gbps() != b.nic_bandwidth_gbps()) {
    parts.push_back("NIC bandwidth " + general_number(b.nic_bandwidth_gbps()) + " vs " + general_number(a.nic_bandwidth_gbps()) + " GB/s");
  } else {
    for (std::size_t i = 0; i < a.nics.size(); ++i) {
      if (a.nics[i].name != b.nics[i].name || a.nics[i].pci != b.nics[i].pci || a.nics[i].kind != b.nics[i].kind ||
          a.nics[i].numa != b.nics[i].numa) {
        parts.push_back("NIC " + std::to_string(i) + " is " + b.nics[i].name + " vs " + a.nics[i].name);
        break;
      }
    }
  }
  if (a.numa_nodes != b.numa_nodes) parts.push_back(std::to_string(b.numa_nodes) + " NUMA nodes vs " + std::to_string(a.numa_nodes));
  if (a.cpu != b.cpu) parts.push_back("CPU " + b.cpu + " vs " + a.cpu);
  if (parts.empty()) return "layouts differ";
  return join(parts, "; ");
}

}  // namespace meshbench::topology
