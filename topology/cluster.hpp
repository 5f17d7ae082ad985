#pragma once
#include <memory>
#include <string>
#include <vector>

#include "topology/node.hpp"

namespace meshbench::topology {

// A cluster: nodes × slots. Slots are numbered node-major (node 0's slots, then node 1's).
// Nodes of the same layout share one NodeTopology, so a 8192-node cluster holds one node
// description and answers any slot pair's link class without an N² table.
class ClusterTopology {
 public:
  ClusterTopology() = default;

  // `nodes` copies of one node description (offline planning, `--nodes N`).
  static ClusterTopology replicate(NodeTopology node, int nodes);
  // One description per node, as assembled from a live cluster; equal layouts are shared.
  static ClusterTopology from_nodes(std::vector<NodeTopology> nodes);
  // Distinct layouts and, per node, its layout and hostname (no per-node copies; for
  // parse-back and large live clusters). Layouts that are equal are merged.
  static ClusterTopology from_layouts(std::vector<NodeTopology> layouts, const std::vector<int>& layout_of,
                                      std::vector<std::string> hostnames);

  int node_count() const { return static_cast<int>(hostnames_.size()); }
  int slot_count() const { return slot_count_; }
  int node_of(int slot) const;
  int local_index(int slot) const { return slot - first_slot_of(node_of(slot)); }
  int first_slot_of(int node) const;
  const NodeTopology& node(int node) const { return *layouts_[layout_of_[node]]; }
  const std::string& hostname(int node) const { return hostnames_[node]; }
  // True when every node has the same layout.
  bool homogeneous() const { return layouts_.size() <= 1; }
  int layout_count() const { return static_cast<int>(layouts_.size()); }
  const NodeTopology& layout(int i) const { return *layouts_[i]; }
  int layout_of(int node) const { return layout_of_[node]; }

  // Nodes whose layout differs from the most common one, one line per differing layout
  // (which hosts, and how they differ); empty when homogeneous. Differences are reported,
  // never averaged.
  std::vector<std::string> differences() const;

  LinkClass link(int slot_a, int slot_b) const;
  // Expected bandwidth of the path, GB/s: the node's matrix inside a node; across nodes, the
  // slower of the two slots' rail NIC bandwidths.
  double bandwidth_gbps(int slot_a, int slot_b) const;

 private:
  std::vector<std::shared_ptr<const NodeTopology>> layouts_;
  std::vector<int> layout_of_;          // per node
  std::vector<std::string> hostnames_;  // per node
  std::vector<int> first_slot_;         // per node, plus one past the end; empty when uniform
  int slots_per_node_ = 0;              // when every node has the same slot count
  int slot_count_ = 0;
};

}  // namespace meshbench::topology
