#pragma once
// What `meshbench calibrate` measures when it is given no results files (docs/run.md,
// "Calibrating"): ordinary measured runs whose groups are slot pairs, chosen from the topology so
// that every link class present and every sharing count the cost model distinguishes is measured.
// Pure functions of the topology: every rank computes the same plan.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "mapping/mapping.hpp"
#include "mapping/ops.hpp"
#include "topology/cluster.hpp"

namespace meshbench::bench {

// A partition of all slots into pairs; a cross-node pair lists its slot on the lower node first.
using SlotPairs = std::vector<std::pair<int, int>>;

// What one arrangement of pairs exercises when all its pairs run at once, as the cost model
// sees it: the slowest class any pair crosses, the most pairs on one NIC and on one PCIe switch
// uplink. Measured alone (isolated), every pair has one flow.
struct ProbeTarget {
  topology::LinkClass link = topology::LinkClass::NET;
  int nic_flows = 0;
  int uplink_flows = 0;
  bool operator==(const ProbeTarget&) const = default;
};

struct PairArrangement {
  std::string name;  // "probe:NVL", "probe:PXB-uplink2", "probe:NET-nic2", "probe:NET-all"
  std::string how;
  SlotPairs pairs;
  ProbeTarget target;
};

// The arrangements: per link class inside a node, pairs of that class on every node (the rest
// paired over faster classes); where pairs of that class leave a PCIe switch, also k = 1, 2, 4, …
// of them through one switch uplink; across nodes, k = 1, 2, 4, … pairs through the node's most
// shared NIC (the rest paired inside their node) and every slot paired with its twin on the
// partner node. Arrangements that cannot be built (odd slot counts, a class whose pairs would
// need a slower one beside them) are left out; equal arrangements are listed once.
std::vector<PairArrangement> probe_arrangements(const topology::ClusterTopology& topology);

struct ProbeMapping {
  mapping::Mapping mapping;
  ProbeTarget target;
};

// One results file of the probe: a layout whose measured dimensions' groups are the arrangements'
// pairs, with the ops measured on them.
struct ProbeLayout {
  std::string name;  // "collectives" | "p2p": what the results file's name ends in
  mapping::Layout layout;
  std::vector<mapping::Dim> dims;
  std::vector<mapping::Op> ops;
  std::vector<ProbeMapping> mappings;
};

// Two layouts over the same arrangements: TP2 with EP2 on the same pairs (all-reduce,
// all-gather, reduce-scatter on TP; all-to-all on EP) and PP2 (send/recv). Empty when the
// world has an odd number of slots (there is no partition into pairs).
std::vector<ProbeLayout> plan_probes(const topology::ClusterTopology& topology);

// The probe's sizes: nccl-tests' sweep from min to max by factor, ending at max even when the
// factor steps over it (so that the largest size is always measured).
std::vector<std::uint64_t> probe_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor);

// True when some NIC is reached by more than one slot: only then can concurrent points
// determine how flows share a NIC.
bool nics_are_shared(const topology::ClusterTopology& topology);

}  // namespace meshbench::bench
