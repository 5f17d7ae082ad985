// Which topology a calibration belongs to: a digest of what the fit depends on, and a summary
// of it for messages. Hostnames, node-type names and where a description came from are left
// out, so that the same hardware read live or from the catalog gets the same digest.
#include <cmath>
#include <cstdio>
#include <set>

#include "common/error.hpp"
#include "common/fnv.hpp"
#include "mapping/calibration.hpp"

namespace meshbench::mapping {

namespace {

// One node layout: its slots, their link classes, its NICs and their line rates (MB/s, so
// that a rate read back from a file in GB/s hashes the same).
std::uint64_t layout_digest(const topology::NodeTopology& node) {
  Fnv h;
  h.mix(static_cast<std::uint32_t>(node.slot_count()));
  h.mix(static_cast<std::uint32_t>(node.links.size()));
  for (auto c : node.links) h.mix(static_cast<std::uint32_t>(c));
  h.mix(static_cast<std::uint32_t>(node.nics.size()));
  for (const auto& nic : node.nics) h.mix(static_cast<std::uint32_t>(std::llround(nic.speed_gbps * 1000)));
  return h.value();
}

std::string gbit(double gbps) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g Gbit/s", gbps * 8);
  return buf;
}

}  // namespace

std::string calibration_digest(const topology::ClusterTopology& topology) {
  std::vector<std::uint64_t> layouts;
  for (int i = 0; i < topology.layout_count(); ++i) layouts.push_back(layout_digest(topology.layout(i)));
  Fnv h;
  h.mix(static_cast<std::uint32_t>(topology.node_count()));
  for (int n = 0; n < topology.node_count(); ++n) {
    const std::uint64_t d = layouts[static_cast<std::size_t>(topology.layout_of(n))];
    h.mix(static_cast<std::uint32_t>(d));
    h.mix(static_cast<std::uint32_t>(d >> 32U));
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h.value()));
  return buf;
}

std::string calibration_summary(const topology::ClusterTopology& topology) {
  const int nodes = topology.node_count();
  std::string s = std::to_string(nodes) + (nodes == 1 ? " node" : " nodes");
  std::set<int> slot_counts;
  std::set<topology::LinkClass> inside;
  std::set<std::size_t> nic_counts;
  double slowest = 0, fastest = 0;
  bool any_nic = false;
  for (int i = 0; i < topology.layout_count(); ++i) {
    const auto& node = topology.layout(i);
    slot_counts.insert(node.slot_count());
    for (auto c : node.links) {
      if (c != topology::LinkClass::LOC) inside.insert(c);
    }
    nic_counts.insert(node.nics.size());
    for (const auto& nic : node.nics) {
      slowest = any_nic ? std::min(slowest, nic.speed_gbps) : nic.speed_gbps;
      fastest = std::max(fastest, nic.speed_gbps);
      any_nic = true;
    }
  }
  s += slot_counts.size() == 1 ? " x " + std::to_string(*slot_counts.begin()) + " slots"
                               : ", " + std::to_string(topology.slot_count()) + " slots";
  if (!inside.empty()) {
    s += " (";
    for (auto c : inside) s += std::string(s.back() == '(' ? "" : " ") + std::string(topology::to_string(c));
    s += ")";
  }
  if (!any_nic) return s + ", no NICs";
  if (nic_counts.size() == 1) {
    const std::size_t n = *nic_counts.begin();
    s += ", " + std::to_string(n) + (n == 1 ? " NIC per node" : " NICs per node");
  } else {
    s += ", NICs per node vary";
  }
  return s + " at " + (slowest == fastest ? gbit(fastest) : gbit(slowest) + " to " + gbit(fastest));
}

void check_calibration_topology(const Calibration& calibration, const topology::ClusterTopology& topology, const std::string& where) {
  const std::string digest = calibration_digest(topology);
  if (calibration.topology_digest == digest) return;
  throw InputError("calibration " + where + " was measured on " + calibration.topology_summary + " (topology " +
                   calibration.topology_digest + "), not on this " + calibration_summary(topology) + " (topology " + digest +
                   "); re-run meshbench calibrate on this allocation");
}

}  // namespace meshbench::mapping
