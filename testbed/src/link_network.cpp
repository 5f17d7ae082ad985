#include "testbed/link_network.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace meshbench::testbed {

LinkNetwork::LinkNetwork(std::vector<NodeLinks> nodes, int slots_per_node, std::size_t queue_limit_bytes)
    : nodes_(std::move(nodes)), slots_per_node_(slots_per_node), queue_limit_bytes_(queue_limit_bytes) {
  if (nodes_.empty() || slots_per_node_ < 1) throw std::invalid_argument("a link network needs at least one node and one slot per node");
  const std::size_t queues = 2 * static_cast<std::size_t>(slot_count()) + 2 * nodes_.size();
  queues_.resize(queues);
  counters_.assign(queues, {});
}

bool LinkNetwork::send(std::uint64_t packet, int from, int to, std::size_t bytes, double now_s) {
  if (from < 0 || to < 0 || from >= slot_count() || to >= slot_count()) throw std::out_of_range("a link network's slot out of range");
  const int from_node = from / slots_per_node_, to_node = to / slots_per_node_;
  const int slots = slot_count();
  Packet p;
  p.id = packet;
  p.to = to;
  p.bytes = bytes;
  p.hops = 2;
  if (from_node == to_node) {
    const LinkSpec& link = nodes_[static_cast<std::size_t>(from_node)].in_node;
    p.path[0] = {2 * from, link.bits_per_second, link.delay_s};
    p.path[1] = {2 * to + 1, link.bits_per_second, 0.0};
  } else {
    const LinkSpec& out = nodes_[static_cast<std::size_t>(from_node)].nic;
    const LinkSpec& in = nodes_[static_cast<std::size_t>(to_node)].nic;
    p.path[0] = {2 * slots + 2 * from_node, out.bits_per_second, out.delay_s};
    p.path[1] = {2 * slots + 2 * to_node + 1, in.bits_per_second, in.delay_s};
  }
  // Every hop due by now first, so that the queue is seen as it is now; then the first queue is
  // reached at once: the caller learns of a drop at the sender.
  for (const Delivery& d : advance(now_s)) early_.push_back(d);
  return arrive(p, now_s, early_);
}

std::string LinkNetwork::queue_name(std::size_t q) const {
  const auto slot_queues = 2 * static_cast<std::size_t>(slot_count());
  if (q >= queues_.size()) throw std::out_of_range("a link network's queue out of range");
  if (q < slot_queues) return "slot" + std::to_string(q / 2) + (q % 2 == 0 ? ".in_node_out" : ".in_node_in");
  const std::size_t nic = q - slot_queues;
  return "node" + std::to_string(nic / 2) + (nic % 2 == 0 ? ".nic_out" : ".nic_in");
}

void LinkNetwork::schedule(double at_s, bool sent, const Packet& packet) { events_.push(Event{at_s, next_order_++, sent, packet}); }

bool LinkNetwork::arrive(const Packet& packet, double t, std::vector<Delivery>& delivered) {
  if (packet.hop == packet.hops) {
    delivered.push_back({packet.id, packet.to, t});
    return true;
  }
  const Hop& hop = packet.path[packet.hop];
  const auto q = static_cast<std::size_t>(hop.queue);
  QueueCounters& c = counters_[q];
  if (hop.rate_bps <= 0) {
    ++c.packets;
    c.bytes += packet.bytes;
    Packet next = packet;
    ++next.hop;
    schedule(t + hop.delay_s, false, next);
    return true;
  }
  Queue& queue = queues_[q];
  if (queue.queued_bytes + packet.bytes > queue_limit_bytes_) {
    ++c.dropped;
    return false;
  }
  queue.queued_bytes += packet.bytes;
  (packet.bytes <= kUrgentBytes ? queue.urgent : queue.bulk).push_back(packet);
  if (!queue.sending) start_sending(hop.queue, t);
  return true;
}

void LinkNetwork::start_sending(int queue_index, double t) {
  Queue& queue = queues_[static_cast<std::size_t>(queue_index)];
  std::deque<Packet>& band = queue.urgent.empty() ? queue.bulk : queue.urgent;
  if (band.empty()) {
    queue.sending = false;
    return;
  }
  const Packet packet = band.front();
  band.pop_front();
  queue.sending = true;
  schedule(t + 8.0 * static_cast<double>(packet.bytes) / packet.path[packet.hop].rate_bps, true, packet);
}

double LinkNetwork::next_event_s() const {
  if (!early_.empty()) return early_.front().at_s;
  return events_.empty() ? std::numeric_limits<double>::infinity() : events_.top().at_s;
}

std::vector<Delivery> LinkNetwork::advance(double now_s) {
  std::vector<Delivery> delivered = std::exchange(early_, {});
  while (!events_.empty() && events_.top().at_s <= now_s) {
    const Event e = events_.top();
    events_.pop();
    if (!e.sent) {
      if (!arrive(e.packet, e.at_s, delivered)) dropped_.push_back(e.packet.id);
      continue;
    }
    // The queue has sent this frame: it travels the link's delay, and the next frame starts.
    const Hop& hop = e.packet.path[e.packet.hop];
    Queue& queue = queues_[static_cast<std::size_t>(hop.queue)];
    QueueCounters& c = counters_[static_cast<std::size_t>(hop.queue)];
    queue.queued_bytes -= e.packet.bytes;
    ++c.packets;
    c.bytes += e.packet.bytes;
    Packet next = e.packet;
    ++next.hop;
    schedule(e.at_s + hop.delay_s, false, next);
    start_sending(hop.queue, e.at_s);
  }
  return delivered;
}

std::vector<std::uint64_t> LinkNetwork::take_dropped() { return std::exchange(dropped_, {}); }

}  // namespace meshbench::testbed
