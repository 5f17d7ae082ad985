#include "testbed/link_config.hpp"

#include <arpa/inet.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace meshbench::testbed {

namespace {

double non_negative(const std::string& text, const std::string& what, int line) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || !std::isfinite(value) || value < 0)
    throw std::invalid_argument("line " + std::to_string(line) + ": " + what + " '" + text + "' is not a number >= 0");
  return value;
}

}  // namespace

std::uint32_t parse_ipv4(const std::string& text) {
  in_addr address{};
  if (inet_pton(AF_INET, text.c_str(), &address) != 1) throw std::invalid_argument("'" + text + "' is not an IPv4 address");
  return ntohl(address.s_addr);
}

LinkConfig parse_link_config(std::istream& in) {
  LinkConfig config;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream fields(line.substr(0, line.find('#')));
    std::string kind;
    if (!(fields >> kind)) continue;
    std::vector<std::string> values;
    for (std::string value; fields >> value;) values.push_back(value);
    const auto need = [&](std::size_t count, const char* form) {
      if (values.size() != count) throw std::invalid_argument("line " + std::to_string(number) + ": expected '" + form + "'");
    };
    if (kind == "queue_bytes") {
      need(1, "queue_bytes BYTES");
      config.queue_bytes = static_cast<std::size_t>(non_negative(values[0], "queue size", number));
    } else if (kind == "node") {
      need(5, "node K NIC_BITS_PER_S NIC_DELAY_S IN_NODE_BITS_PER_S IN_NODE_DELAY_S");
      if (values[0] != std::to_string(config.nodes.size()))
        throw std::invalid_argument("line " + std::to_string(number) + ": nodes must be numbered 0, 1, ... in order");
      NodeLinks node;
      node.nic = {non_negative(values[1], "NIC rate", number), non_negative(values[2], "NIC delay", number)};
      node.in_node = {non_negative(values[3], "in-node rate", number), non_negative(values[4], "in-node delay", number)};
      config.nodes.push_back(node);
    } else if (kind == "slot") {
      need(3, "slot NETNS IPV4 NODE");
      SlotPort slot;
      slot.netns = values[0];
      try {
        slot.ipv4 = parse_ipv4(values[1]);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("line " + std::to_string(number) + ": " + e.what());
      }
      slot.node = static_cast<int>(non_negative(values[2], "node", number));
      config.slots.push_back(slot);
    } else {
      throw std::invalid_argument("line " + std::to_string(number) + ": unknown entry '" + kind + "'");
    }
  }
  if (config.nodes.empty() || config.slots.empty()) throw std::invalid_argument("no node or no slot");
  if (config.slots.size() % config.nodes.size() != 0) throw std::invalid_argument("every node must have the same number of slots");
  const int per_node = config.slots_per_node();
  for (std::size_t s = 0; s < config.slots.size(); ++s) {
    if (config.slots[s].node != static_cast<int>(s) / per_node)
      throw std::invalid_argument("slot " + config.slots[s].netns + " is listed out of node order");
  }
  return config;
}

}  // namespace meshbench::testbed
