#include "topology/cluster.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace meshbench::topology {

ClusterTopology ClusterTopology::replicate(NodeTopology node, int nodes) {
  if (nodes < 1) throw InputError("--nodes must be at least 1 (got " + std::to_string(nodes) + ")");
  ClusterTopology c;
  const std::string base = node.hostname.empty() ? "node" : node.hostname;
  c.slots_per_node_ = node.slot_count();
  c.slot_count_ = c.slots_per_node_ * nodes;
  c.layouts_.push_back(std::make_shared<const NodeTopology>(std::move(node)));
  c.layout_of_.assign(static_cast<std::size_t>(nodes), 0);
  c.hostnames_.reserve(static_cast<std::size_t>(nodes));
  for (int n = 0; n < nodes; ++n) c.hostnames_.push_back(nodes == 1 ? base : base + "-" + std::to_string(n));
  return c;
}

ClusterTopology ClusterTopology::from_nodes(std::vector<NodeTopology> nodes) {
  if (nodes.empty()) throw InputError("a cluster needs at least one node");
  ClusterTopology c;
  bool uniform = true;
  for (auto& n : nodes) {
    c.hostnames_.push_back(n.hostname);
    int found = -1;
    for (std::size_t i = 0; i < c.layouts_.size(); ++i) {
      if (c.layouts_[i]->same_layout(n)) { found = static_cast<int>(i); break; }
    }
    if (found < 0) {
      found = static_cast<int>(c.layouts_.size());
      c.layouts_.push_back(std::make_shared<const NodeTopology>(std::move(n)));
    }
    c.layout_of_.push_back(found);
  }
  c.first_slot_.push_back(0);
  for (std::size_t i = 0; i < c.layout_of_.size(); ++i) {
    const int count = c.layouts_[static_cast<std::size_t>(c.layout_of_[i])]->slot_count();
    if (count != c.layouts_[static_cast<std::size_t>(c.layout_of_[0])]->slot_count()) uniform = false;
    c.first_slot_.push_back(c.first_slot_.back() + count);
  }
  c.slot_count_ = c.first_slot_.back();
  if (uniform) {
    c.slots_per_node_ = c.layouts_[static_cast<std::size_t>(c.layout_of_[0])]->slot_count();
    c.first_slot_.clear();
  }
  return c;
}

int ClusterTopology::node_of(int slot) const {
  if (first_slot_.empty()) return slot / slots_per_node_;
  const auto it = std::upper_bound(first_slot_.begin(), first_slot_.end(), slot);
  return static_cast<int>(it - first_slot_.begin()) - 1;
}

int ClusterTopology::first_slot_of(int node) const {
  return first_slot_.empty() ? node * slots_per_node_ : first_slot_[static_cast<std::size_t>(node)];
}

LinkClass ClusterTopology::link(int a, int b) const {
  if (a == b) return LinkClass::LOC;
  const int na = node_of(a), nb = node_of(b);
  if (na != nb) return LinkClass::NET;
  const int base = first_slot_of(na);
  return node(na).link(a - base, b - base);
}

double ClusterTopology::bandwidth_gbps(int a, int b) const {
  const int na = node_of(a), nb = node_of(b);
  if (na == nb) {
    const int base = first_slot_of(na);
    return node(na).bandwidth(a - base, b - base);
  }
  return std::min(node(na).rail_bandwidth_gbps(a - first_slot_of(na)), node(nb).rail_bandwidth_gbps(b - first_slot_of(nb)));
}

}  // namespace meshbench::topology
