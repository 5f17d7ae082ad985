#pragma once
// The link emulator's configuration file, as slurm/localcluster/up.sh --link-bound writes it:
//
//   queue_bytes BYTES
//   node K NIC_BITS_PER_S NIC_DELAY_S IN_NODE_BITS_PER_S IN_NODE_DELAY_S    (K = 0, 1, ...)
//   slot NETNS IPV4 K                                                        (node-major order)
//
// '#' starts a comment. Every node has the same number of slots, listed node by node.
#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include "testbed/link_network.hpp"

namespace meshbench::testbed {

struct SlotPort {
  std::string netns;
  std::uint32_t ipv4 = 0;  // host byte order
  int node = 0;
};

struct LinkConfig {
  std::size_t queue_bytes = 4u << 20;
  std::vector<NodeLinks> nodes;
  std::vector<SlotPort> slots;
  int slots_per_node() const { return nodes.empty() ? 0 : static_cast<int>(slots.size() / nodes.size()); }
};

// Throws std::invalid_argument naming the line and what is wrong with it.
LinkConfig parse_link_config(std::istream& in);
// "10.211.0.1" in host byte order; throws std::invalid_argument.
std::uint32_t parse_ipv4(const std::string& text);

}  // namespace meshbench::testbed
