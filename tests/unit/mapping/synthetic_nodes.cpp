#include "synthetic_nodes.hpp"

namespace meshbench::mapping::testing {

topology::NodeTopology make_node(const NodeSpec& spec, const std::string& hostname) {
  using topology::LinkClass;
  topology::NodeTopology n;
  n.hostname = hostname;
  n.source = "test";
  n.numa_nodes = spec.numa;
  const int switches = (spec.gpus + spec.gpus_per_switch - 1) / spec.gpus_per_switch;
  for (int g = 0; g < spec.gpus; ++g) {
    topology::Slot s;
    s.index = g;
    s.numa = g * spec.numa / spec.gpus;
    s.model = "test GPU";
    s.pci_switch = g / spec.gpus_per_switch;
    s.pci = "0000:" + std::to_string(10 + g) + ":00.0";
    n.slots.push_back(s);
  }
  for (int i = 0; i < spec.nics; ++i) {
    topology::Nic nic;
    nic.name = "nic" + std::to_string(i);
    nic.kind = topology::NicKind::efa;
    nic.speed_gbps = spec.nic_gbps;
    nic.pci_switch = i * switches / spec.nics;
    nic.numa = nic.pci_switch * spec.numa / switches;
    n.nics.push_back(nic);
  }
  n.rails.resize(static_cast<std::size_t>(spec.gpus));
  for (int g = 0; g < spec.gpus; ++g) {
    if (spec.nics >= spec.gpus) {
      const int per = spec.nics / spec.gpus;
      for (int k = 0; k < per; ++k) n.rails[static_cast<std::size_t>(g)].push_back(g * per + k);
    } else {
      for (int i = 0; i < spec.nics; ++i) {
        if (n.nics[static_cast<std::size_t>(i)].pci_switch == n.slots[static_cast<std::size_t>(g)].pci_switch || spec.nics == 1) {
          n.rails[static_cast<std::size_t>(g)].push_back(i);
        }
      }
    }
  }
  for (int a = 0; a < spec.gpus; ++a) {
    for (int b = 0; b < spec.gpus; ++b) {
      const auto& sa = n.slots[static_cast<std::size_t>(a)];
      const auto& sb = n.slots[static_cast<std::size_t>(b)];
      LinkClass c = LinkClass::LOC;
      double bw = 0;
      if (a != b && spec.nvlink) {
        c = LinkClass::NVL;
        bw = spec.nvl_gbps;
      } else if (a != b) {
        c = sa.pci_switch == sb.pci_switch ? LinkClass::PIX : sa.numa == sb.numa ? LinkClass::PXB : LinkClass::SYS;
        bw = c == LinkClass::SYS ? 10 : 24;
      }
      n.links.push_back(c);
      n.bandwidth_gbps.push_back(bw);
    }
  }
  return n;
}

}  // namespace meshbench::mapping::testing
