#pragma once
// The link-bound local cluster's network as a discrete-event model: every packet between two
// ranks crosses shaped links, each a FIFO queue that sends at the link's rate, then the link's
// delay. Pure: no clock and no I/O, so the daemon (meshbench-linkemu) and the tests drive it
// with the same times.
//
// A packet inside one node leaves through its slot's in-node port and enters the other slot's
// (the way a GPU's NVLink ports or a CPU core's memory path are its own); a packet to another
// node leaves through its node's NIC and enters the other node's NIC, each hop adding its
// link's delay. Sharing a link is queueing at it: two flows through one NIC each get half.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <queue>
#include <string>
#include <vector>

namespace meshbench::testbed {

struct LinkSpec {
  double bits_per_second = 0;  // 0: not shaped (no serialisation time)
  double delay_s = 0;          // one way, added after the packet leaves the queue
};

struct NodeLinks {
  LinkSpec nic;      // the node's network link, each direction
  LinkSpec in_node;  // each slot's port to the other slots of its node, each direction
};

struct Delivery {
  std::uint64_t packet = 0;
  int to_slot = 0;
  double at_s = 0;
};

struct QueueCounters {
  std::uint64_t packets = 0, bytes = 0, dropped = 0;
};

class LinkNetwork {
 public:
  static constexpr std::size_t kUrgentBytes = 256;

  // Slot s lives on node s / slots_per_node. A queue holding more than queue_limit_bytes drops
  // what arrives (a tail drop, as a switch port does).
  LinkNetwork(std::vector<NodeLinks> nodes, int slots_per_node, std::size_t queue_limit_bytes);

  int slot_count() const { return static_cast<int>(nodes_.size()) * slots_per_node_; }

  // A packet of `bytes` from slot `from` to slot `to` enters the network at time now_s. False
  // when the first queue drops it (later queues may drop it too: it is then never delivered).
  bool send(std::uint64_t packet, int from, int to, std::size_t bytes, double now_s);
  // When the next hop of any packet happens; +inf when the network is empty.
  double next_event_s() const;
  // Every hop due by now_s, in time order; returns the packets that reached their slot.
  std::vector<Delivery> advance(double now_s);
  // Packets a queue dropped that never reached their slot (the daemon frees their bytes).
  std::vector<std::uint64_t> take_dropped();

  // Per queue, in the order: each slot's in-node out and in port, then each node's NIC out and in.
  const std::vector<QueueCounters>& counters() const { return counters_; }
  // The name of counters()[q] in the daemon's statistics: "slot3.in_node_out", "node1.nic_in".
  std::string queue_name(std::size_t q) const;

 private:
  struct Hop {
    int queue = 0;
    double rate_bps = 0;
    double delay_s = 0;
  };
  struct Packet {
    std::uint64_t id = 0;
    int to = 0;
    std::size_t bytes = 0;
    std::uint8_t hop = 0;
    std::uint8_t hops = 0;
    Hop path[2];
  };
  // A link's queue: frames of kUrgentBytes or less (TCP's acknowledgements, MPI's control
  // messages) leave before bulk ones, as on a NIC they would wait microseconds, not the
  // milliseconds a slow emulated link takes to send the bulk ahead of them. One frame at a time.
  struct Queue {
    std::deque<Packet> urgent, bulk;
    std::size_t queued_bytes = 0;
    bool sending = false;
  };
  struct Event {
    double at_s = 0;
    std::uint64_t order = 0;  // ties keep arrival order
    bool sent = false;        // false: the packet arrives at its hop; true: its queue sent it
    Packet packet;
    bool operator>(const Event& other) const { return at_s != other.at_s ? at_s > other.at_s : order > other.order; }
  };

  void schedule(double at_s, bool sent, const Packet& packet);
  // The packet reaches its next hop at t: false when that hop's queue drops it.
  bool arrive(const Packet& packet, double t, std::vector<Delivery>& delivered);
  void start_sending(int queue, double t);

  std::vector<NodeLinks> nodes_;
  int slots_per_node_;
  std::size_t queue_limit_bytes_;
  std::vector<Queue> queues_;
  std::vector<QueueCounters> counters_;
  std::vector<std::uint64_t> dropped_;
  std::vector<Delivery> early_;  // delivered by send() itself (unshaped, no delay)
  std::uint64_t next_order_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
};

}  // namespace meshbench::testbed
