#include "topology/cluster.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "topology/src/layout_diff.hpp"

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
  std::vector<int> layout_of;
  std::vector<std::string> hostnames;
  for (const auto& n : nodes) hostnames.push_back(n.hostname);
  for (std::size_t i = 0; i < nodes.size(); ++i) layout_of.push_back(static_cast<int>(i));
  return from_layouts(std::move(nodes), layout_of, std::move(hostnames));
}

ClusterTopology ClusterTopology::from_layouts(std::vector<NodeTopology> layouts, const std::vector<int>& layout_of,
                                              std::vector<std::string> hostnames) {
  if (layout_of.empty()) throw InputError("a cluster needs at least one node");
  if (hostnames.size() != layout_of.size()) throw InputError("a cluster needs one hostname per node");
  ClusterTopology c;
  // Equal layouts are stored once, so a cluster of identical nodes holds one description.
  std::vector<int> merged(layouts.size(), -1);
  std::vector<bool> used(layouts.size(), false);
  for (int l : layout_of) {
    if (l >= 0 && l < static_cast<int>(used.size())) used[static_cast<std::size_t>(l)] = true;
  }
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    if (!used[i]) continue;
    for (std::size_t k = 0; k < c.layouts_.size(); ++k) {
      if (c.layouts_[k]->same_layout(layouts[i])) {
        merged[i] = static_cast<int>(k);
        break;
      }
    }
    if (merged[i] < 0) {
      merged[i] = static_cast<int>(c.layouts_.size());
      c.layouts_.push_back(std::make_shared<const NodeTopology>(std::move(layouts[i])));
    }
  }
  for (int l : layout_of) {
    if (l < 0 || l >= static_cast<int>(merged.size()))
      throw InputError("a node names layout " + std::to_string(l) + ", which does not exist");
    c.layout_of_.push_back(merged[static_cast<std::size_t>(l)]);
  }
  c.hostnames_ = std::move(hostnames);
  c.first_slot_.push_back(0);
  bool uniform = true;
  const int first_count = c.layouts_[static_cast<std::size_t>(c.layout_of_[0])]->slot_count();
  for (int l : c.layout_of_) {
    const int count = c.layouts_[static_cast<std::size_t>(l)]->slot_count();
    uniform = uniform && count == first_count;
    c.first_slot_.push_back(c.first_slot_.back() + count);
  }
  c.slot_count_ = c.first_slot_.back();
  if (uniform) {
    c.slots_per_node_ = first_count;
    c.first_slot_.clear();
  }
  return c;
}

std::vector<std::string> ClusterTopology::differences() const {
  if (homogeneous()) return {};
  std::vector<std::vector<int>> nodes_of(layouts_.size());
  for (std::size_t n = 0; n < layout_of_.size(); ++n) nodes_of[static_cast<std::size_t>(layout_of_[n])].push_back(static_cast<int>(n));
  // The most common layout is the reference; the others are what differs.
  std::size_t ref = 0;
  for (std::size_t l = 1; l < nodes_of.size(); ++l) {
    if (nodes_of[l].size() > nodes_of[ref].size()) ref = l;
  }
  const auto hosts = [&](const std::vector<int>& nodes) {
    std::string text;
    for (std::size_t i = 0; i < nodes.size() && i < 3; ++i) text += (i > 0 ? ", " : "") + hostnames_[static_cast<std::size_t>(nodes[i])];
    return nodes.size() > 3 ? text + ", ..." : text;
  };
  std::vector<std::string> lines;
  for (std::size_t l = 0; l < nodes_of.size(); ++l) {
    if (l == ref) continue;
    lines.push_back(std::to_string(nodes_of[l].size()) + " node(s) (" + hosts(nodes_of[l]) + ") differ from the " +
                    std::to_string(nodes_of[ref].size()) + " node(s) like " + hostnames_[static_cast<std::size_t>(nodes_of[ref][0])] +
                    ": " + describe_layout_difference(*layouts_[ref], *layouts_[l]));
  }
  return lines;
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
