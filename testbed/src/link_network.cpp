#include "testbed/link_network.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace meshbench::testbed {

LinkNetwork::LinkNetwork(std::vector<NodeLinks> nodes, int slots_per_node, std::size_t queue_limit_bytes)
    : nodes_(std::move(nodes)), slots_per_node_(slots_per_node), queue_limit_bits_(8.0 * static_cast<double>(queue_limit_bytes)) {
  if (nodes_.empty() || slots_per_node_ < 1) throw std::invalid_argument("a link network needs at least one node and one slot per node");
  const std::size_t queues = 2 * static_cast<std::size_t>(slot_count()) + 2 * nodes_.size();
  busy_until_s_.assign(queues, 0.0);
  counters_.assign(queues, {});
}

bool LinkNetwork::send(std::uint64_t packet, int from, int to, std::size_t bytes, double now_s) {
  if (from < 0 || to < 0 || from >= slot_count() || to >= slot_count()) throw std::out_of_range("a link network's slot out of range");
  const int from_node = from / slots_per_node_, to_node = to / slots_per_node_;
  const int slots = slot_count();
  Event e;
  e.at_s = now_s;
  e.packet = packet;
  e.to = to;
  e.bytes = bytes;
  e.hops = 2;
  if (from_node == to_node) {
    const LinkSpec& link = nodes_[static_cast<std::size_t>(from_node)].in_node;
    e.path[0] = {2 * from, link.bits_per_second, link.delay_s};
    e.path[1] = {2 * to + 1, link.bits_per_second, 0.0};
  } else {
    const LinkSpec& out = nodes_[static_cast<std::size_t>(from_node)].nic;
    const LinkSpec& in = nodes_[static_cast<std::size_t>(to_node)].nic;
    e.path[0] = {2 * slots + 2 * from_node, out.bits_per_second, out.delay_s};
    e.path[1] = {2 * slots + 2 * to_node + 1, in.bits_per_second, in.delay_s};
  }
  // The first queue is passed at once: the caller learns of a drop at the sender.
  if (!pass_queue(e)) return false;
  enqueue(e);
  return true;
}

bool LinkNetwork::pass_queue(Event& e) {
  const Hop& hop = e.path[e.hop];
  const auto q = static_cast<std::size_t>(hop.queue);
  const double bits = 8.0 * static_cast<double>(e.bytes);
  double& busy = busy_until_s_[q];
  QueueCounters& c = counters_[q];
  if (hop.rate_bps <= 0) {
    e.at_s += hop.delay_s;
  } else {
    const double waiting_bits = std::max(0.0, busy - e.at_s) * hop.rate_bps;
    if (waiting_bits + bits > queue_limit_bits_) {
      ++c.dropped;
      return false;
    }
    busy = std::max(busy, e.at_s) + bits / hop.rate_bps;
    e.at_s = busy + hop.delay_s;
  }
  ++c.packets;
  c.bytes += e.bytes;
  ++e.hop;
  return true;
}

void LinkNetwork::enqueue(Event event) {
  event.order = next_order_++;
  events_.push(event);
}

double LinkNetwork::next_event_s() const { return events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().at_s; }

std::vector<Delivery> LinkNetwork::advance(double now_s) {
  std::vector<Delivery> delivered;
  while (!events_.empty() && events_.top().at_s <= now_s) {
    Event e = events_.top();
    events_.pop();
    if (e.hop == e.hops) {
      delivered.push_back({e.packet, e.to, e.at_s});
    } else if (pass_queue(e)) {
      enqueue(e);
    } else {
      dropped_.push_back(e.packet);
    }
  }
  return delivered;
}

std::vector<std::uint64_t> LinkNetwork::take_dropped() { return std::exchange(dropped_, {}); }

}  // namespace meshbench::testbed
