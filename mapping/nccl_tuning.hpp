#pragma once
// NCCL's own tuning model (src/graph/tuning.cc, and the channel choice of src/enqueue.cc), as
// the cost model prices GPU collectives: which algorithm and protocol NCCL picks for an op, a
// size, a GPU count and a node count, and what it then takes. The figures are NCCL's; the
// topology search that feeds them (src/graph/search.cc) is reduced to the rules in
// `graphs_for`. docs/mapping.md ("GPU links: NCCL's tuning model") says where each comes from.
// Pure functions: no I/O, no state; `tuned` keeps what they compute per communicator for reuse.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/nccl_version.hpp"

namespace meshbench::mapping {

// The NCCL release whose tuning constants the model carries (tag v2.28.9-1).
inline constexpr std::string_view kNcclTuningVersion = "2.28.9";

namespace nccl {

// NCCL's order, which its tables are indexed by.
enum class Algorithm : std::uint8_t { tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat };
enum class Protocol : std::uint8_t { ll, ll128, simple };
inline constexpr int kAlgorithms = 7;
inline constexpr int kProtocols = 3;
std::string_view to_string(Algorithm a);  // "tree", "ring", ..., "nvls_tree", "pat"
std::string_view to_string(Protocol p);   // "LL", "LL128", "Simple"

// Releases as major×10000 + minor×100 + patch: "2.18.5" -> 21805 and back (common/nccl_version.hpp).
using ::meshbench::nccl::parse_version;
using ::meshbench::nccl::version_string;

// The collectives NCCL's tuning model prices (the all-to-alls and send/recv are point to point,
// which it does not model).
enum class Collective : std::uint8_t { all_reduce, all_gather, reduce_scatter };

// NCCL_ALGO and NCCL_PROTO: the algorithms and protocols NCCL's tuning may choose among for each
// collective, a bit each in NCCL's order. All by default.
struct Allowed {
  static constexpr std::uint8_t kAllAlgorithms = (1U << kAlgorithms) - 1;
  static constexpr std::uint8_t kAllProtocols = (1U << kProtocols) - 1;
  std::array<std::uint8_t, 3> algorithms{kAllAlgorithms, kAllAlgorithms, kAllAlgorithms};  // by Collective
  std::array<std::uint8_t, 3> protocols{kAllProtocols, kAllProtocols, kAllProtocols};
  bool permits(Collective coll, int algorithm, int protocol) const;
  bool operator==(const Allowed&) const = default;
};

// NCCL_ALGO's and NCCL_PROTO's values as NCCL reads them (parseList, src/graph/tuning.cc): names,
// case-insensitive and comma-separated ("Ring", "Tree,Ring", "NVLS,NVLSTree"), or with a leading
// '^' the names left out ("^NVLS"); ';'-separated "allreduce:tree,ring" gives one collective its
// own list, after an optional first list for all of them. Empty text allows everything. nullopt
// for a name NCCL does not know (NCCL refuses it too).
std::optional<Allowed> parse_allowed(std::string_view nccl_algo, std::string_view nccl_proto);

// What NCCL's tuning reads of a communicator and the machine under it. Bandwidths are NCCL's
// GB/s (its per-NVLink figure times the links, a NIC's speed / 8000 Mb/s per GB/s).
struct Communicator {
  int sm = 90;                // compute capability × 10 of the (slowest) GPU
  int ranks = 1;              // GPUs in the communicator
  int nodes = 1;              // nodes they span (ranks / nodes GPUs on each)
  double intra_gbps = 0;      // one GPU's bandwidth to the others of its node: NVLink or PCIe
  bool nvlink = false;        // the GPUs of a node reach each other over NVLink
  bool nvswitch = false;      // ... through NVSwitches (what NVLink SHARP needs)
  double nic_gbps = 0;        // one network device: a GPU's nearest NICs together, as NCCL's network plugin
                              // presents them (aws-ofi-nccl: the 4 EFA of a p5 GPU as one)
  int nics = 0;               // such devices per node
  bool amd_cpu = false;       // the hosts' CPU vendor (NCCL's network latency and LL cap read it)
  double net_latency_us = 0;  // the network's latency beyond NCCL's table (its graph's latencyInter),
                              // per platform (topology/catalog.hpp)
  int nccl_version = 22809;   // major×10000 + minor×100 + patch: NVLS from 2.17, NVLS tree from 2.18, PAT from 2.23
  // NCCL_ALGO / NCCL_PROTO. Where they leave a collective nothing NCCL could run (NCCL refuses
  // such an op), the model prices it as though they were not set.
  Allowed allowed{};
  bool operator==(const Communicator&) const = default;
};

// One pattern's channels as NCCL's topology search would find them.
struct Graph {
  int channels = 0;
  double bw_intra = 0;  // per channel, GB/s
  double bw_inter = 0;
};

struct Graphs {
  Graph ring;
  Graph tree;  // the ring's channels
  Graph nvls;  // channels 0 where NVLink SHARP is not available
};

// The reduced search: the fastest speed of NCCL's per-architecture grid that the GPU's links
// (NVLink inside a node, its NICs between nodes) carry on as many channels as fit, then NCCL's
// channel duplication.
Graphs graphs_for(const Communicator& comm);

// NCCL's table for one collective: latency (µs) and algorithm bandwidth (GB/s) per algorithm
// and protocol, bandwidth 0 where the pair is not available.
struct Tuning {
  double latency_us[kAlgorithms][kProtocols] = {};
  double bandwidth_gbps[kAlgorithms][kProtocols] = {};
  int ring_channels = 0;
  int nvls_channels = 0;
};
Tuning tune(const Communicator& comm, Collective coll);

// A communicator with what NCCL's tuning derives from it before any size: its graphs' table for
// each collective and the channels one of its nodes gives point-to-point transfers. Pricing many
// sizes of one communicator reads these instead of searching its graphs again; the prices are
// those of the functions on a Communicator below, to the bit.
struct Tuned {
  Communicator comm;
  std::array<Tuning, 3> tuning{};  // by Collective
  double p2p_intra_gbps = 0;       // the node's ring channels × their speed
};
Tuned tuned(const Communicator& comm);

// What NCCL picks for `bytes` (nccl-tests' size: the whole buffer) and what it takes: NCCL's
// estimate (`ncclTopoGetAlgoTime`), with its bandwidth term spread over the channels it then
// launches for that size (fewer than all for small sizes).
struct Choice {
  Algorithm algorithm = Algorithm::ring;
  Protocol protocol = Protocol::simple;
  int channels = 0;
  double time_us = 0;
};
Choice choose(const Communicator& comm, Collective coll, std::uint64_t bytes);
Choice choose(const Tuned& t, Collective coll, std::uint64_t bytes);

// The all-to-alls and send/recv, which NCCL runs as point-to-point transfers its tuning does not
// price: each GPU's share for the others of its node over NVLink, and for other nodes over one
// network device, at the speeds NCCL's search gives a channel, after a latency of NCCL's
// Simple protocol (LL below NCCL's LL threshold for p2p). `bytes` is one GPU's send buffer.
struct PointToPoint {
  Protocol protocol = Protocol::simple;
  double time_us = 0;
};
PointToPoint all_to_all(const Communicator& comm, std::uint64_t bytes);
PointToPoint send_recv(const Communicator& comm, std::uint64_t bytes);
PointToPoint all_to_all(const Tuned& t, std::uint64_t bytes);
PointToPoint send_recv(const Tuned& t, std::uint64_t bytes);

}  // namespace nccl
}  // namespace meshbench::mapping
