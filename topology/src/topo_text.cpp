#include "topology/src/topo_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

namespace meshbench::topology {

namespace {

std::string hundredths(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", std::round(v * 100.0) / 100.0);
  return buf;
}

// "0-3,8,10-11"
std::string ranges(const std::vector<int>& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(values[i]) + (j > i ? "-" + std::to_string(values[j]) : "");
    i = j + 1;
  }
  return out.empty() ? "-" : out;
}

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.append(width - s.size(), ' ');
  return s;
}

std::string hosts(const ClusterTopology& c, const std::vector<int>& nodes) {
  std::string text;
  const std::size_t shown = nodes.size() <= 8 ? nodes.size() : 3;
  for (std::size_t i = 0; i < shown; ++i) text += (i > 0 ? ", " : "") + c.hostname(nodes[i]);
  if (shown < nodes.size()) text += ", ... " + c.hostname(nodes.back());
  return text;
}

void print_matrix(std::ostream& out, const NodeTopology& n, bool bandwidth) {
  const int count = n.slot_count();
  std::size_t width = 4;
  if (bandwidth) {
    for (double v : n.bandwidth_gbps) width = std::max(width, hundredths(v).size() + 1);
  }
  out << "    " << pad("", 5);
  for (int b = 0; b < count; ++b) out << pad(std::to_string(b), width);
  out << "\n";
  for (int a = 0; a < count; ++a) {
    out << "    " << pad(std::to_string(a), 5);
    for (int b = 0; b < count; ++b) out << pad(bandwidth ? hundredths(n.bandwidth(a, b)) : std::string(to_string(n.link(a, b))), width);
    out << "\n";
  }
}

void print_layout(std::ostream& out, const ClusterTopology& c, int l, const std::vector<int>& nodes) {
  const NodeTopology& n = c.layout(l);
  out << "layout " << l << ": " << nodes.size() << (nodes.size() == 1 ? " node" : " identical nodes") << " (" << hosts(c, nodes) << ")\n";
  out << "  source: " << (n.source.empty() ? "-" : n.source) << (n.node_type.empty() ? "" : ", node type " + n.node_type) << "\n";
  if (!n.cpu.empty()) out << "  CPU: " << n.cpu << "\n";
  std::vector<int> numas;
  for (const auto& s : n.slots) numas.push_back(s.numa);
  for (const auto& nic : n.nics) numas.push_back(nic.numa);
  std::sort(numas.begin(), numas.end());
  numas.erase(std::unique(numas.begin(), numas.end()), numas.end());
  out << "  NUMA nodes: " << n.numa_nodes << "\n";
  for (int numa : numas) {
    std::vector<int> slots, nics;
    for (const auto& s : n.slots) {
      if (s.numa == numa) slots.push_back(s.index);
    }
    for (std::size_t i = 0; i < n.nics.size(); ++i) {
      if (n.nics[i].numa == numa) nics.push_back(static_cast<int>(i));
    }
    out << "    NUMA " << (numa < 0 ? std::string("unknown") : std::to_string(numa)) << ": slots " << ranges(slots) << ", NICs "
        << ranges(nics) << "\n";
  }
  out << "  slots:\n    " << pad("slot", 6) << pad("kind", 6) << pad("model", 32) << pad("pci", 15) << pad("numa", 6) << pad("switch", 8)
      << pad("rail NICs", 11) << "rail GB/s\n";
  for (const auto& s : n.slots) {
    out << "    " << pad(std::to_string(s.index), 6) << pad(std::string(to_string(s.kind)), 6) << pad(s.model, 32)
        << pad(s.pci.empty() ? "-" : s.pci, 15) << pad(std::to_string(s.numa), 6)
        << pad(s.pci_switch < 0 ? "-" : std::to_string(s.pci_switch), 8) << pad(ranges(n.rails[static_cast<std::size_t>(s.index)]), 11)
        << hundredths(n.rail_bandwidth_gbps(s.index)) << "\n";
  }
  out << "  NICs:" << (n.nics.empty() ? " none\n" : "\n");
  if (!n.nics.empty()) {
    out << "    " << pad("nic", 5) << pad("name", 14) << pad("kind", 7) << pad("pci", 15) << pad("numa", 6) << pad("switch", 8)
        << "speed\n";
    for (std::size_t i = 0; i < n.nics.size(); ++i) {
      const Nic& nic = n.nics[i];
      out << "    " << pad(std::to_string(i), 5) << pad(nic.name, 14) << pad(std::string(to_string(nic.kind)), 7)
          << pad(nic.pci.empty() ? "-" : nic.pci, 15) << pad(std::to_string(nic.numa), 6)
          << pad(nic.pci_switch < 0 ? "-" : std::to_string(nic.pci_switch), 8) << hundredths(nic.speed_gbps * 8) << " Gb/s ("
          << hundredths(nic.speed_gbps) << " GB/s)\n";
    }
  }
  out << "  link classes, slot x slot:\n";
  print_matrix(out, n, false);
  out << "  expected bandwidth, GB/s, slot x slot (NCCL's path bandwidth):\n";
  print_matrix(out, n, true);
  for (const auto& note : n.notes) out << "  note: " << note << "\n";
}

}  // namespace

void print_topology_text(std::ostream& out, const ClusterTopology& c, const std::vector<std::string>& warnings,
                         const std::vector<int>& slot_of_rank) {
  out << "cluster: " << c.node_count() << (c.node_count() == 1 ? " node, " : " nodes, ") << c.slot_count()
      << (c.slot_count() == 1 ? " slot, " : " slots, ") << c.layout_count() << (c.layout_count() == 1 ? " layout" : " distinct layouts")
      << "\n\n";
  for (int l = 0; l < c.layout_count(); ++l) {
    std::vector<int> nodes;
    for (int n = 0; n < c.node_count(); ++n) {
      if (c.layout_of(n) == l) nodes.push_back(n);
    }
    print_layout(out, c, l, nodes);
    out << "\n";
  }
  if (c.node_count() > 1) {
    out << "between nodes: NET. A slot sends off its node through its rail NICs; the expected bandwidth between slots on two nodes is the "
           "slower of their rail bandwidths";
    const NodeTopology& n = c.layout(0);
    if (!n.slots.empty()) out << " (layout 0, slot 0: " << hundredths(n.rail_bandwidth_gbps(0)) << " GB/s)";
    out << ".\n";
  }
  if (!slot_of_rank.empty()) {
    out << "ranks -> slots:";
    for (std::size_t r = 0; r < slot_of_rank.size(); ++r) out << (r % 16 == 0 ? "\n  " : "  ") << r << "->" << slot_of_rank[r];
    out << "\n";
  }
  for (const auto& w : warnings) out << "warning: " << w << "\n";
}

}  // namespace meshbench::topology
