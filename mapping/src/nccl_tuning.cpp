// NCCL 2.28.9's tuning model (src/graph/tuning.cc, src/enqueue.cc), with the topology search
// (src/graph/search.cc) reduced to rules for nodes whose GPUs are alike (docs/mapping.md, "GPU
// links: NCCL's tuning model"). Names follow NCCL's where one exists, so the two read side by
// side.
#include "mapping/nccl_tuning.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <limits>
#include <span>

namespace meshbench::mapping::nccl {

namespace {

constexpr int kTree = static_cast<int>(Algorithm::tree);
constexpr int kRing = static_cast<int>(Algorithm::ring);
constexpr int kNvls = static_cast<int>(Algorithm::nvls);
constexpr int kNvlsTree = static_cast<int>(Algorithm::nvls_tree);
constexpr int kPat = static_cast<int>(Algorithm::pat);
constexpr int kLL = static_cast<int>(Protocol::ll);
constexpr int kLL128 = static_cast<int>(Protocol::ll128);
constexpr int kSimple = static_cast<int>(Protocol::simple);

// tuning.cc, ncclTunerConstantsDefaults and nvlsEfficiency. Rows of the per-architecture
// tables: Volta, Ampere, Hopper, Blackwell; columns: 1, 2, more than 2 nodes.
constexpr double kBaseLatency[kAlgorithms][kProtocols] = {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0},      {0, 0, 0},
                                                          {0, 0, 0},        {0, 0, 0},        {8.0, 8.0, 8.0}};
enum Hw { kNvlinkHw, kPciHw, kNetHw };
constexpr double kHwLatency[3][kAlgorithms][kProtocols] = {
    {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}},
};
// LL's cap: one node reads the GPU's row; more nodes read row 0 (Intel CPUs) or 1 (AMD).
constexpr double kLlMaxBw[4][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
constexpr double kPerChMaxRingLL128Bw[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {2 * 36.7, 34.6, 2 * 36.7}};
constexpr double kPerChMaxTreeLL128Bw[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChMaxTreeBw[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
constexpr double kPerChMaxNvlsTreeBw[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 43.8}};
constexpr double kNvlsEfficiency[4] = {0.0, 0.0, 0.85, 0.74};
// Trees' static correction by size: powers of two from 64 B to 256 MB (ncclTopoGetAlgoTime).
constexpr double kTreeCorrection[kProtocols][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

// Not NCCL's: NVLink SHARP starts slower than the 25 µs of NCCL's table. On both published
// 8×H100 sweeps (tests/data/published) NVLS trails its table by about this much at 2-64 MiB,
// and NCCL there still runs ring LL128 at 2-16 MiB; the model adds it to NVLS's latency.
constexpr double kNvlsStartupUs = 25.0;

// search.cc: the speeds (GB/s per channel) the search tries, inside a node and across nodes.
constexpr std::array kSpeedIntra = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
constexpr std::array kSpeedInter = {48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                    7.0,  6.0,  5.0,  4.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr std::array kSm90SpeedIntra = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr std::array kSm90SpeedInter = {48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12};
constexpr std::array kSm100SpeedIntra = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr std::array kSm100SpeedInter = {96.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0,
                                         17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr int kMaxRingChannels = 32;  // MAXCHANNELS / 2
constexpr int kMaxNvlsArity = 32;

// device.h: threads per channel, and the bytes each thread must have before NCCL adds channels.
constexpr int kSimpleMaxThreads = 512, kLLMaxThreads = 512, kLL128MaxThreads = 640;
constexpr int kLLThreadThreshold = 8, kLL128ThreadThreshold = 8, kSimpleThreadThreshold = 64;
// Point to point (NCCL_P2P_LL_THRESHOLD): peers getting at most this many bytes go over LL.
constexpr double kP2pLLThreshold = 16384;
// Point to point: what each further peer adds to the latency (its send and receive are posted
// and completed one peer after another). Not NCCL's figure: the intercepts of published
// all_to_all sweeps (tests/data/published) give 2-4.4 µs per peer on 8-80 H100.
constexpr double kP2pPeerLatency = 3.5;

int compcap_index(int sm) { return sm >= 100 ? 3 : sm >= 90 ? 2 : sm >= 80 ? 1 : 0; }

std::span<const double> speeds(int sm, bool inter) {
  if (sm >= 100) return inter ? std::span<const double>(kSm100SpeedInter) : std::span<const double>(kSm100SpeedIntra);
  if (sm >= 90) return inter ? std::span<const double>(kSm90SpeedInter) : std::span<const double>(kSm90SpeedIntra);
  return inter ? std::span<const double>(kSpeedInter) : std::span<const double>(kSpeedIntra);
}

int log2i(std::uint64_t n) { return n == 0 ? -1 : 63 - std::countl_zero(n); }

int ranks_per_node(const Communicator& c) { return std::max(1, c.ranks / std::max(1, c.nodes)); }

// Ring (and tree) channels: the search keeps the speed × channels that carries most (the first
// found on a tie), where every channel crosses each GPU's intra-node links once and, across
// nodes, one network device per node.
Graph ring_graph(const Communicator& c) {
  const bool inter = c.nodes > 1;
  Graph best;
  for (double s : speeds(c.sm, inter)) {
    // The search stops lowering the speed once it falls under half the best found.
    if (best.channels > 0 && s / best.bw_inter <= .49) break;
    double fits = c.intra_gbps > 0 ? c.intra_gbps / s : kMaxRingChannels;
    if (inter) {
      if (s > c.nic_gbps) continue;
      fits = std::min(fits, c.nics * std::floor(c.nic_gbps / s + 1e-9));  // whole channels per device
    } else if (s > c.intra_gbps) {
      continue;
    }
    const int k = std::min(kMaxRingChannels, static_cast<int>(std::floor(fits + 1e-9)));
    if (k >= 1 && k * s > best.channels * best.bw_intra + 1e-9) best = {k, s, s};
  }
  if (best.channels == 0) return {1, 0.1, 0.1};  // NCCL's fallback when the search finds nothing
  // ncclTopoDupChannels: fast channels are doubled at half the speed each.
  if (best.bw_intra >= 25.0 && !(c.sm > 80 && best.bw_intra < 50.0 && best.channels > 4)) {
    const int dup = std::min(best.channels * 2, kMaxRingChannels);
    const double div = std::ceil(static_cast<double>(dup) / best.channels);
    best = {dup, best.bw_intra / div, best.bw_inter / div};
  }
  return best;
}

// The tree's channels are the ring's; on two nodes the search's second pass raises the tree's
// intra-node speed up to twice its network speed (each node's NICs carry half a tree's traffic).
Graph tree_graph(const Communicator& c, const Graph& ring) {
  Graph tree = ring;
  if (c.nodes != 2) return tree;
  for (double s : speeds(c.sm, true)) {
    if (s <= 2 * ring.bw_inter + 1e-9 && s * ring.channels <= c.intra_gbps + 1e-9) {
      tree.bw_intra = std::max(ring.bw_intra, s);
      break;
    }
  }
  return tree;
}

// NVLink SHARP: one channel per GPU of the node (each is the head of one); a channel loads its
// head's link twice and every other GPU's once. Inside one node nothing else bounds bwInter, so
// the search's second pass raises it to the top speed; across nodes a head's NIC bounds it.
Graph nvls_graph(const Communicator& c) {
  const int ppn = ranks_per_node(c);
  const bool available = c.nvswitch && c.sm >= 90 && ppn >= 2 && c.nccl_version >= (c.nodes > 1 ? 21800 : 21700);
  if (!available) return {};
  const int channels = std::min(kMaxNvlsArity, ppn);
  const auto intra = speeds(c.sm, false);
  const auto fit = std::find_if(intra.begin(), intra.end(), [&](double s) { return s * (ppn + 1) <= c.intra_gbps + 1e-9; });
  if (fit == intra.end()) return {};
  double inter = intra.front();
  if (c.nodes > 1) {
    const auto net = speeds(c.sm, true);
    const auto it = std::find_if(net.begin(), net.end(), [&](double s) { return s <= c.nic_gbps; });
    inter = it == net.end() ? net.back() : *it;
  }
  return {channels, *fit, inter};
}

struct Context {
  const Communicator& c;
  Collective coll;
  Graphs g;
  int cc, index1, index2, ppn;
  double nsteps;
};

// A protocol's bus bandwidth on an algorithm before the conversion to algorithm bandwidth
// (tuning.cc, the "model refinements").
double bus_bandwidth(const Context& x, int a, int p) {
  const Graph& gr = (a == kNvls || a == kNvlsTree) ? x.g.nvls : a == kTree ? x.g.tree : x.g.ring;
  double bw = x.c.nodes <= 2 ? gr.bw_intra : gr.bw_inter;
  if (a == kNvls || a == kNvlsTree) {
    if (gr.channels < 2) return 0;
    double intra = gr.bw_intra * kNvlsEfficiency[x.cc] * (gr.channels - 1) / gr.channels;
    intra *= x.coll == Collective::all_reduce ? 2.0 : static_cast<double>(x.ppn - 1) / x.ppn;
    const double inter = gr.bw_inter * ((x.c.nodes <= 2 && a == kNvlsTree) ? 2 : 1);
    bw = std::min({intra, inter, a == kNvlsTree ? kPerChMaxNvlsTreeBw[x.cc][x.index2] : std::numeric_limits<double>::max()});
  }
  double bus = gr.channels * bw;
  const double ll_max = kLlMaxBw[x.index1][x.index2];
  if (a == kRing && p == kLL) bus = std::min(ll_max, bus * .5);
  if (a == kRing && p == kLL128) bus = std::min(bus * 0.92, gr.channels * kPerChMaxRingLL128Bw[x.cc][x.index2]);
  if (a == kTree && x.coll == Collective::all_reduce) bus = std::min(bus * .92, gr.channels * kPerChMaxTreeBw[x.cc][x.index2]);
  if (a == kTree && p == kLL) bus = std::min(bus / 3.8, ll_max);
  if (a == kTree && p == kLL128)
    bus = std::min(bus * (x.c.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), gr.channels * kPerChMaxTreeLL128Bw[x.cc][x.index2]);
  if (a == kPat) bus *= .75;
  // NVLS gathers and scatters across nodes need CollNet (SHARP switches), which this model omits.
  if (a == kNvls && x.coll != Collective::all_reduce && x.c.nodes > 1) bus = 0;
  return bus;
}

// Which algorithm × protocol pairs NCCL considers for this communicator and collective.
bool available(const Context& x, int a, int p) {
  if (!x.c.allowed.permits(x.coll, a, p)) return false;  // NCCL_ALGO, NCCL_PROTO
  const bool gather = x.coll != Collective::all_reduce;
  if (a == static_cast<int>(Algorithm::collnet_direct) || a == static_cast<int>(Algorithm::collnet_chain)) return false;
  if (gather && a != kPat && a != kRing && a != kNvls) return false;
  if (!gather && a == kPat) return false;
  if ((a == kNvls || a == kNvlsTree) && (p != kSimple || x.g.nvls.channels == 0)) return false;
  if (a == kNvls && x.c.nodes > 1 && !gather) return false;  // NVLS alone across nodes needs CollNet
  if (a == kNvlsTree && x.c.nodes == 1) return false;
  if (a == kPat && (p != kSimple || x.c.nodes != x.c.ranks || x.c.nccl_version < 22300)) return false;
  // LL128 by default only where the GPUs of a node talk over NVLink (Hopper and later: also
  // through the CPU to the NIC).
  if (p == kLL128 && !x.c.nvlink) return false;
  // Not NCCL's rule: its table gives trees LL128 across more than two nodes, but the published
  // 4- and 10-node H100 sweeps (tests/data/published) run at 2-16 MiB as Simple and LL would,
  // 40-60% slower than the table's LL128. The model leaves LL128 out of those trees.
  if (a == kTree && p == kLL128 && x.c.nodes > 2) return false;
  return true;
}

double latency(const Context& x, int a, int p) {
  const int intra_hw = x.c.nvlink ? kNvlinkHw : kPciHw;
  const double intra = kHwLatency[intra_hw][a][p];
  // The network's own latency (NCCL's graph latencyInter), twice for Simple (its flush).
  const double inter = (x.ppn == 1 ? kHwLatency[kNetHw][kTree][p] : kHwLatency[kNetHw][a][p]) + x.c.net_latency_us * (p == kSimple ? 2 : 1);
  const int nodes = x.c.nodes;
  const double net_overhead = nodes > 1 ? (x.c.amd_cpu ? 2.0 : 1.0) * (p == kSimple ? 3 : 1) : 0.0;
  switch (a) {
    case kRing: {
      // Inter-node rings still pay NCCL's network post overhead on every step.
      const double inter_steps = nodes == 1 ? 0 : x.coll == Collective::all_reduce ? 2.0 * (nodes - 1) : nodes - 1.0;
      return kBaseLatency[a][p] + (x.nsteps - inter_steps) * std::max(intra, net_overhead) + inter_steps * inter;
    }
    case kTree: return kBaseLatency[a][p] + 2 * ((x.ppn - 1) * intra + log2i(static_cast<std::uint64_t>(nodes)) * inter);
    case kNvls: return kNvlsStartupUs + intra + (nodes > 1 ? inter : 0);
    case kNvlsTree: return kNvlsStartupUs + kBaseLatency[a][p] + intra + 2 * log2i(static_cast<std::uint64_t>(nodes)) * inter;
    case kPat: return kBaseLatency[a][p] + log2i(static_cast<std::uint64_t>(nodes)) * (inter / 3.5) + x.c.ranks * 2.8;
    default: return 0;
  }
}

Context context(const Communicator& c, Collective coll, const Graphs& graphs) {
  const int cc = compcap_index(c.sm);
  const int index2 = c.nodes <= 2 ? c.nodes - 1 : 2;
  const int index1 = c.nodes == 1 ? cc : (c.amd_cpu ? 1 : 0);
  const double n = c.ranks;
  const double nsteps = coll == Collective::all_reduce ? 2 * (n - 1) : n - 1;
  return {c, coll, graphs, cc, index1, index2, ranks_per_node(c), nsteps};
}

// The table of one collective on graphs already searched.
Tuning tune_on(const Communicator& comm, Collective coll, const Graphs& graphs) {
  Tuning t;
  const Context x = context(comm, coll, graphs);
  t.ring_channels = x.g.ring.channels;
  t.nvls_channels = x.g.nvls.channels;
  if (comm.ranks <= 1) return t;
  const bool gather = coll != Collective::all_reduce;
  bool any = false;
  for (int a = 0; a < kAlgorithms; ++a) {
    for (int p = 0; p < kProtocols; ++p) {
      if (!available(x, a, p)) continue;
      any = true;
      double bw = bus_bandwidth(x, a, p);
      // Bus to algorithm bandwidth, except for the gathers' non-ring algorithms.
      if (!(a != kRing && gather)) bw *= (a == kRing || a == kNvls || a == kNvlsTree) ? comm.ranks / x.nsteps : .5;
      t.bandwidth_gbps[a][p] = bw;
      t.latency_us[a][p] = latency(x, a, p);
    }
  }
  // NCCL refuses an op that NCCL_ALGO and NCCL_PROTO leave nothing for; priced as without them.
  if (!any && comm.allowed != Allowed{}) {
    Communicator unrestricted = comm;
    unrestricted.allowed = {};
    return tune_on(unrestricted, coll, graphs);
  }
  return t;
}

// What one GPU's node gives point-to-point transfers inside it: its ring's channels × their speed.
double p2p_intra_gbps(const Communicator& c) {
  Communicator node = c;
  node.ranks = ranks_per_node(c);
  node.nodes = 1;
  const Graph ring = ring_graph(node);
  return ring.channels * ring.bw_intra;
}

}  // namespace

std::string_view to_string(Algorithm a) {
  static constexpr std::array<std::string_view, kAlgorithms> kNames = {"tree",      "ring", "collnet_direct", "collnet_chain", "nvls",
                                                                       "nvls_tree", "pat"};
  return kNames[static_cast<std::size_t>(a)];
}

std::string_view to_string(Protocol p) {
  static constexpr std::array<std::string_view, kProtocols> kNames = {"LL", "LL128", "Simple"};
  return kNames[static_cast<std::size_t>(p)];
}

bool Allowed::permits(Collective coll, int algorithm, int protocol) const {
  const auto c = static_cast<std::size_t>(coll);
  return ((algorithms[c] >> algorithm) & 1U) != 0 && ((protocols[c] >> protocol) & 1U) != 0;
}

namespace {

bool same_nccl_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// parseList: "[list][;function:list]...", each list "name,name" or "^name,name"; `names` in NCCL's
// order (ncclAlgoStr, ncclProtoStr). Functions NCCL has that the model does not price (Broadcast,
// Reduce, SendRecv) are read and left out. False on a name NCCL does not know.
bool parse_nccl_list(std::string_view text, std::span<const std::string_view> names, std::array<std::uint8_t, 3>& masks) {
  static constexpr std::array<std::pair<std::string_view, int>, 6> kFunctions = {
      {{"AllReduce", 0}, {"AllGather", 1}, {"ReduceScatter", 2}, {"Broadcast", -1}, {"Reduce", -1}, {"SendRecv", -1}}};
  static_assert(static_cast<int>(Collective::all_reduce) == 0 && static_cast<int>(Collective::all_gather) == 1 &&
                static_cast<int>(Collective::reduce_scatter) == 2);
  const auto all = static_cast<std::uint8_t>((1U << names.size()) - 1);
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find(';', start), text.size());
    std::string_view part = text.substr(start, end - start);
    start = end + 1;
    int function = -2;  // every collective
    if (const auto colon = part.find(':'); colon != std::string_view::npos) {
      const auto it =
          std::find_if(kFunctions.begin(), kFunctions.end(), [&](const auto& f) { return same_nccl_name(f.first, part.substr(0, colon)); });
      if (it == kFunctions.end()) return false;
      function = it->second;
      part = part.substr(colon + 1);
    }
    const bool exclude = !part.empty() && part.front() == '^';
    if (exclude) part.remove_prefix(1);
    std::uint8_t mask = exclude ? all : 0;
    std::size_t at = 0;
    while (at <= part.size()) {
      const std::size_t comma = std::min(part.find(',', at), part.size());
      const std::string_view name = part.substr(at, comma - at);
      at = comma + 1;
      if (name.empty()) continue;
      const auto it = std::find_if(names.begin(), names.end(), [&](std::string_view n) { return same_nccl_name(n, name); });
      if (it == names.end()) return false;
      const auto bit = static_cast<std::uint8_t>(1U << (it - names.begin()));
      mask = exclude ? static_cast<std::uint8_t>(mask & ~bit) : static_cast<std::uint8_t>(mask | bit);
    }
    if (function == -2) masks.fill(mask);
    else if (function >= 0) masks[static_cast<std::size_t>(function)] = mask;
  }
  return true;
}

}  // namespace

std::optional<Allowed> parse_allowed(std::string_view nccl_algo, std::string_view nccl_proto) {
  // ncclAlgoStr and ncclProtoStr.
  static constexpr std::array<std::string_view, kAlgorithms> kAlgoNames = {"Tree",     "Ring", "CollNetDirect", "CollNetChain", "NVLS",
                                                                           "NVLSTree", "PAT"};
  static constexpr std::array<std::string_view, kProtocols> kProtoNames = {"LL", "LL128", "Simple"};
  Allowed allowed;
  if (!parse_nccl_list(nccl_algo, kAlgoNames, allowed.algorithms) || !parse_nccl_list(nccl_proto, kProtoNames, allowed.protocols))
    return std::nullopt;
  return allowed;
}

Graphs graphs_for(const Communicator& comm) {
  const Graph ring = ring_graph(comm);
  return {ring, tree_graph(comm, ring), nvls_graph(comm)};
}

Tuning tune(const Communicator& comm, Collective coll) { return tune_on(comm, coll, graphs_for(comm)); }

Tuned tuned(const Communicator& comm) {
  Tuned t{.comm = comm};
  const Graphs graphs = graphs_for(comm);
  for (Collective coll : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter})
    t.tuning[static_cast<std::size_t>(coll)] = tune_on(comm, coll, graphs);
  t.p2p_intra_gbps = p2p_intra_gbps(comm);
  return t;
}

namespace {

// ncclTopoGetAlgoTime: the table's time, with the trees' size correction and the ring's plateau;
// its latency and its transfer apart. Latency -1 where the pair is not available.
struct AlgoTime {
  double latency_us = -1, transfer_us = 0;
};
AlgoTime algo_time(const Tuning& t, const Communicator& c, Collective coll, int a, int p, std::uint64_t bytes) {
  double bw = t.bandwidth_gbps[a][p];
  double lat = t.latency_us[a][p];
  if (bw <= 0) return {};
  const int log_size = log2i(bytes >> 6);
  if (a == kTree && coll == Collective::all_reduce && log_size >= 0 && log_size < 23) bw *= kTreeCorrection[p][log_size];
  if (a == kRing && p == kSimple && c.nodes > 1 && coll == Collective::all_reduce &&
      bytes / static_cast<std::uint64_t>(std::max(1, t.ring_channels) * c.ranks) >= 64)
    lat *= c.sm < 80 ? 1.9 : 1.4;
  return {lat, static_cast<double>(bytes) / (1000.0 * bw)};
}

// topoGetAlgoInfo: ring and tree give up channels while each thread would get too few bytes.
int launched_channels(const Tuning& t, const Communicator& c, int a, int p, std::uint64_t bytes) {
  if (a == kNvls || a == kNvlsTree) return t.nvls_channels;
  const int threads = p == kLL ? kLLMaxThreads : p == kLL128 ? kLL128MaxThreads : kSimpleMaxThreads;
  std::uint64_t threshold = p == kLL ? kLLThreadThreshold : p == kLL128 ? kLL128ThreadThreshold : kSimpleThreadThreshold;
  if (a == kRing && p == kLL) threshold *= static_cast<std::uint64_t>(c.ranks);
  int nc = std::max(1, t.ring_channels);
  while (nc >= 2 && bytes < static_cast<std::uint64_t>(nc) * threads * threshold) --nc;
  return nc;
}

// The speed NCCL's search gives one channel through a network device of `gbps`.
double device_speed(int sm, double gbps) {
  const auto grid = speeds(sm, true);
  const auto it = std::find_if(grid.begin(), grid.end(), [&](double s) { return s <= gbps + 1e-9; });
  return it == grid.end() ? gbps : *it;
}

// Point to point: what one GPU's share to `peers_inside` of its node and `peers_outside` on
// other nodes takes, each peer getting `per_peer` bytes.
// `intra_gbps` is p2p_intra_gbps(c).
PointToPoint p2p_time(const Communicator& c, double intra_gbps, double per_peer, int peers_inside, int peers_outside) {
  const double inter_gbps = device_speed(c.sm, c.nic_gbps);
  const bool ll = per_peer <= kP2pLLThreshold;
  const int p = ll ? kLL : kSimple;
  const double net_latency =
      peers_outside > 0 ? kHwLatency[kNetHw][kRing][p] + (c.amd_cpu ? 2.0 : 1.0) + c.net_latency_us * (ll ? 1 : 2) : 0.0;
  const double latency = kBaseLatency[kRing][p] + kHwLatency[c.nvlink ? kNvlinkHw : kPciHw][kRing][p] + net_latency +
                         (peers_inside + peers_outside) * kP2pPeerLatency;
  // LL carries half its bytes as flags.
  const double eff = ll ? 0.5 : 1.0;
  const double inside = peers_inside > 0 && intra_gbps > 0 ? per_peer * peers_inside / (1000.0 * intra_gbps * eff) : 0.0;
  const double outside = peers_outside > 0 && inter_gbps > 0 ? per_peer * peers_outside / (1000.0 * inter_gbps * eff) : 0.0;
  return {ll ? Protocol::ll : Protocol::simple, latency + std::max(inside, outside)};
}

PointToPoint all_to_all_at(const Communicator& comm, double intra_gbps, std::uint64_t bytes) {
  if (comm.ranks <= 1) return {};
  const int ppn = ranks_per_node(comm);
  return p2p_time(comm, intra_gbps, static_cast<double>(bytes) / comm.ranks, ppn - 1, comm.ranks - ppn);
}

PointToPoint send_recv_at(const Communicator& comm, double intra_gbps, std::uint64_t bytes) {
  if (comm.ranks <= 1) return {};
  const bool across = comm.nodes > 1;
  return p2p_time(comm, intra_gbps, static_cast<double>(bytes), across ? 0 : 1, across ? 1 : 0);
}

Choice choose_on(const Tuning& t, const Communicator& comm, Collective coll, std::uint64_t bytes) {
  Choice best;
  if (comm.ranks <= 1) return best;
  double best_time = std::numeric_limits<double>::infinity();
  for (int a = 0; a < kAlgorithms; ++a) {
    for (int p = 0; p < kProtocols; ++p) {
      const AlgoTime time = algo_time(t, comm, coll, a, p, bytes);
      if (time.latency_us >= 0 && time.latency_us + time.transfer_us < best_time) {
        best_time = time.latency_us + time.transfer_us;
        best.algorithm = static_cast<Algorithm>(a);
        best.protocol = static_cast<Protocol>(p);
      }
    }
  }
  const int a = static_cast<int>(best.algorithm), p = static_cast<int>(best.protocol);
  best.channels = launched_channels(t, comm, a, p, bytes);
  // The bandwidth term is carried by the channels launched, not by all of them.
  const int all = (a == kNvls || a == kNvlsTree) ? t.nvls_channels : t.ring_channels;
  const AlgoTime picked = algo_time(t, comm, coll, a, p, bytes);
  best.time_us = picked.latency_us + picked.transfer_us * static_cast<double>(all) / std::max(1, best.channels);
  return best;
}

}  // namespace

PointToPoint all_to_all(const Communicator& comm, std::uint64_t bytes) {
  return all_to_all_at(comm, comm.ranks <= 1 ? 0 : p2p_intra_gbps(comm), bytes);
}
PointToPoint send_recv(const Communicator& comm, std::uint64_t bytes) {
  return send_recv_at(comm, comm.ranks <= 1 ? 0 : p2p_intra_gbps(comm), bytes);
}
PointToPoint all_to_all(const Tuned& t, std::uint64_t bytes) { return all_to_all_at(t.comm, t.p2p_intra_gbps, bytes); }
PointToPoint send_recv(const Tuned& t, std::uint64_t bytes) { return send_recv_at(t.comm, t.p2p_intra_gbps, bytes); }

Choice choose(const Communicator& comm, Collective coll, std::uint64_t bytes) { return choose_on(tune(comm, coll), comm, coll, bytes); }
Choice choose(const Tuned& t, Collective coll, std::uint64_t bytes) {
  return choose_on(t.tuning[static_cast<std::size_t>(coll)], t.comm, coll, bytes);
}

}  // namespace meshbench::mapping::nccl
