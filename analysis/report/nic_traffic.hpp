#pragma once
// What every host's NICs counted during each measured visit (the results file's /nic_counters)
// against what the point's op must move off that host: a check of the placement (traffic on a
// host the mapping keeps inside a node is a mapping that does not do what it says) and of the
// model at once; and every retransmit, drop and error found, named by the point it happened in.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/ops/op.hpp"
#include "results/point_key.hpp"
#include "results/records.hpp"

namespace meshbench::analysis {

// How a point's bytes off each host are known: exactly (every rank's sends are the op's own:
// all-to-all, send/recv), from a ring in the group's order (all-reduce, all-gather,
// reduce-scatter: what a ring moves; a library may choose a tree or recursive doubling, which
// move other amounts; for groups of 2 every algorithm moves the ring's), or not at all.
enum class TrafficModel : std::uint8_t { exact, ring, none };
const char* to_string(TrafficModel model);

// Bytes each host sends to other hosts in one op of size `bytes` (the results file's size)
// over `groups` (logical ranks, all at once), with `host_of_rank` naming each rank's host.
// Hosts that send nothing off themselves are present with 0. `model` says how it is known.
std::map<std::string, double> bytes_off_each_host(ops::Op op, std::uint64_t bytes, const std::vector<std::vector<int>>& groups,
                                                  const std::vector<std::string>& host_of_rank, TrafficModel& model);

// Ethernet counters count every frame from its Ethernet header: an IPv4 TCP segment with
// timestamps carries 14 + 20 + 32 bytes of headers, once per counted packet (a GSO super-packet
// counts once, with one set of headers; a pure ACK is headers only).
inline constexpr std::int64_t kTcpFrameHeaderBytes = 66;

// One NIC of one host over one visit of a point.
struct NicTrafficRow {
  results::PointVisit visit;  // the point's key without a layout
  std::string host, nic, kind;
  std::int64_t ops = 0;
  std::int64_t tx_bytes = -1, rx_bytes = -1;  // as counted (-1: no such counter)
  // What the frames carried once their headers are taken off (Ethernet: bytes − packets × 66;
  // RDMA counters count payload already); -1 when unknown.
  double tx_payload = -1, rx_payload = -1;
  // The op's bytes off this host over the visit's ops, split evenly over the host's NICs that
  // carried the point (those of the busiest kind with at least a tenth of its busiest NIC's
  // payload); -1 when not modelled or this NIC carried nothing of it.
  double expected_tx = -1;
  TrafficModel model = TrafficModel::none;
  double ratio = 0;  // tx_payload / expected_tx; 0 when either is unknown
};

// A retransmit, drop, error or impaired connection counted during one visit.
struct NicEvent {
  results::PointVisit visit;  // the point's key without a layout
  std::string host, nic;
  std::string what;  // "2 retransmitted packets (16384 bytes)", "1 dropped on receive", ...
};

struct NicTraffic {
  std::vector<NicTrafficRow> rows;  // the NICs that carried each visit's traffic, in the file's order
  std::vector<NicEvent> events;
  int visits = 0;  // visits with counters
  std::vector<std::string> notes;
};

// Where the model finds a mapping by name (its placement and measured groups; nullptr when the
// file does not hold it) and a slot's host ("" when unknown).
struct MappingView {
  std::function<const results::MappingRecord*(const std::string&)> find_mapping;
  std::function<std::string(int)> host_of_slot;
};
NicTraffic build_nic_traffic(const std::vector<results::NicCounterDelta>& deltas, const MappingView& view);

}  // namespace meshbench::analysis
