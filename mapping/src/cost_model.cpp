// The α-β cost model with contention (docs/mapping.md, "Cost model").
// All groups of a dimension run at once: a ring's inter-node bandwidth at a node is the sum,
// over the NICs its local members reach, of each NIC's bandwidth divided by the number of the
// dimension's groups using it; an all-to-all is bounded by the node's egress summed over all
// groups, over all of the node's NICs. Scoring is linear in the world size: each group is sorted
// by slot so that its members on one node form a run.
#include "mapping/cost_model.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

#include "common/error.hpp"
#include "op_terms.hpp"
#include "topology/catalog.hpp"

namespace meshbench::mapping {

using ops::Family;
using topology::LinkClass;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

using detail::us_per_byte;

// Keeps the profiles no other profile beats on both terms: the slowest group for any size is
// among them.
void add_profile(std::vector<Profile>& front, Profile p) {
  for (const auto& q : front) {
    if (q.alpha_us >= p.alpha_us && q.us_per_byte >= p.us_per_byte) return;
  }
  std::erase_if(front, [&p](const Profile& q) { return p.alpha_us >= q.alpha_us && p.us_per_byte >= q.us_per_byte; });
  front.push_back(p);
}

// Paths that leave a PCIe switch without NVLink share the switch's uplink.
bool crosses_pcie_uplink(LinkClass c) { return c == LinkClass::PXB || c == LinkClass::PHB || c == LinkClass::SYS; }

}  // namespace

namespace detail {
// A group's members on one node: [begin, end) of the scratch's member buffer.
struct Run {
  int node, begin, end;
  LinkClass worst;     // slowest class between two of them (LOC for one member)
  double gbps;         // the bandwidth of that class
  std::uint64_t rail;  // the NIC classes its members reach
};

// A group as it is priced: its runs [first_run, end_run) and how many nodes it spans (more than
// its runs when node 0's run stands for all of them).
struct PricedGroup {
  int first_run, end_run, nodes;
};

// The links of one dimension that a calibration scales by (DimShape::line_gbps and the shared
// line): the slowest alone, and the one giving one flow the least once its k flows share it as
// the calibration's sharing k^γ says (a fair share without one). On a tie the fewer flows: a
// slow NIC with one flow is the bottleneck beside a NIC twice as fast with two once γ < 1.
struct LineTally {
  double alone_gbps = 0;
  double shared_per_flow_gbps = 0;
  double shared_alone_gbps = 0;
  int shared_flows = 0;

  void add(double alone, double per_flow, int flows) {
    if (!(alone > 0) || !(per_flow > 0)) return;
    alone_gbps = alone_gbps == 0 ? alone : std::min(alone_gbps, alone);
    if (shared_flows == 0 || per_flow < shared_per_flow_gbps || (per_flow == shared_per_flow_gbps && flows < shared_flows)) {
      shared_per_flow_gbps = per_flow;
      shared_alone_gbps = alone;
      shared_flows = flows;
    }
  }
};

// Node 0's members of one group, as local slots (nodes of at most 64 slots).
struct NodePiece {
  int group;
  std::uint64_t mask = 0;
  int count = 0;
};

}  // namespace detail

// Flow counts are zero between scorings: each pass resets what it touched, through the touched
// lists, so that a scoring costs what its groups touch rather than the cluster's size.
struct CostScratch::Buffers {
  std::vector<int> members;  // the groups' slots, one group after another, each sorted
  std::vector<int> class_users, switch_users;
  std::vector<double> node_egress;
  std::vector<int> touched_classes, touched_switches, touched_nodes;
  std::vector<detail::Run> runs;
  std::vector<detail::PricedGroup> groups;
  std::vector<detail::NodePiece> pieces;
  std::vector<int> locals;
  // The dimension being priced: its links across nodes and inside them.
  detail::LineTally net_lines, inside_lines;

  void fit(const CostModel::Fabric& f);
};

CostScratch::CostScratch() : buffers_(std::make_unique<Buffers>()) {}
CostScratch::~CostScratch() = default;
CostScratch::CostScratch(CostScratch&&) noexcept = default;
CostScratch& CostScratch::operator=(CostScratch&&) noexcept = default;

CostScratch::Buffers& CostScratch::buffers() {
  if (!buffers_) buffers_ = std::make_unique<Buffers>();
  return *buffers_;
}

struct CostModel::Fabric {
  using Run = detail::Run;
  struct NodeLayout {
    int slots = 0;
    // NICs reached by the same set of slots always carry the same flows, so they are counted
    // as one "NIC class" (p5: 8 classes of 4 NICs): bit i of a rail = class i.
    std::vector<std::uint64_t> rail;  // per slot
    std::vector<double> class_gbps;   // per class: its NICs' bandwidth together
    double node_gbps = 0;
    std::vector<LinkClass> link;    // slots × slots
    std::vector<double> link_gbps;  // slots × slots, from the class parameters
    std::vector<int> pcie_switch;   // per slot: dense switch id, -1 unknown
    int switches = 0;
    // For nodes of up to kTabulated slots: per set of local slots (bit mask), the slowest link
    // class between two of them and its bandwidth, so a run costs no pair loop.
    std::vector<LinkClass> worst_of_mask;
    std::vector<double> gbps_of_mask;
    // GPU nodes, for NCCL's tuning model.
    bool gpu = false;
    int sm = 0;
    bool nvswitch = false;  // every pair of GPUs over NVLink
    bool amd_cpu = false;
    double net_latency_us = 0;
  };
  static constexpr int kTabulated = 12;
  int slots = 0;
  std::vector<int> node_of, local_of, first_slot, layout_of;
  std::vector<int> class_base, switch_base;
  std::vector<NodeLayout> layouts;
  int nodes = 0, total_classes = 0, total_switches = 0;

  const NodeLayout& at(int node) const { return layouts[static_cast<std::size_t>(layout_of[static_cast<std::size_t>(node)])]; }
};

namespace {

// Slowest class among a set of local slots and its bandwidth (LOC and infinity for one slot).
std::pair<LinkClass, double> worst_pair(const CostModel::Fabric::NodeLayout& l, const int* locals, int count) {
  LinkClass worst = LinkClass::LOC;
  double gbps = kInf;
  for (int a = 0; a < count; ++a) {
    for (int b = a + 1; b < count; ++b) {
      const std::size_t k = static_cast<std::size_t>(locals[a]) * static_cast<std::size_t>(l.slots) + static_cast<std::size_t>(locals[b]);
      worst = std::max(worst, l.link[k]);
      gbps = std::min(gbps, l.link_gbps[k]);
    }
  }
  return {worst, gbps};
}

// NICs reached by the same set of slots become one class: its bandwidth, and per slot the
// classes it reaches (l.rail); the node's total NIC bandwidth.
void nic_classes(const topology::NodeTopology& node, const CostParams& params, CostModel::Fabric::NodeLayout& l) {
  const double net_cap = params[LinkClass::NET].bandwidth_gbps;
  std::vector<double> nic_gbps;
  for (const auto& nic : node.nics) nic_gbps.push_back(std::min(nic.speed_gbps > 0 ? nic.speed_gbps : net_cap, net_cap));
  if (nic_gbps.empty()) nic_gbps.push_back(net_cap);  // one virtual NIC where the node lists none
  const std::uint64_t all = nic_gbps.size() == 64 ? ~0ULL : (1ULL << nic_gbps.size()) - 1;
  std::vector<std::uint64_t> nic_rail;  // per slot, over NICs
  for (int s = 0; s < l.slots; ++s) {
    std::uint64_t mask = 0;
    if (static_cast<std::size_t>(s) < node.rails.size()) {
      for (int nic : node.rails[static_cast<std::size_t>(s)]) mask |= 1ULL << nic;
    }
    nic_rail.push_back(mask != 0 ? mask : all);  // no rail known: any NIC of the node
  }
  // Class of a NIC = the set of slots that reach it.
  std::map<std::vector<bool>, int> class_of_set;
  std::vector<int> class_of_nic;
  for (std::size_t nic = 0; nic < nic_gbps.size(); ++nic) {
    std::vector<bool> users(static_cast<std::size_t>(l.slots));
    for (int s = 0; s < l.slots; ++s) users[static_cast<std::size_t>(s)] = ((nic_rail[static_cast<std::size_t>(s)] >> nic) & 1U) != 0;
    const int c = class_of_set.emplace(users, static_cast<int>(class_of_set.size())).first->second;
    if (static_cast<std::size_t>(c) == l.class_gbps.size()) l.class_gbps.push_back(0);
    l.class_gbps[static_cast<std::size_t>(c)] += nic_gbps[nic];
    class_of_nic.push_back(c);
  }
  for (int s = 0; s < l.slots; ++s) {
    std::uint64_t mask = 0;
    for (std::size_t nic = 0; nic < nic_gbps.size(); ++nic) {
      if (((nic_rail[static_cast<std::size_t>(s)] >> nic) & 1U) != 0) mask |= 1ULL << class_of_nic[nic];
    }
    l.rail.push_back(mask);
  }
  for (double b : nic_gbps) l.node_gbps += b;
}

// Per set of local slots (small nodes only), the slowest class between two of them.
void tabulate_slot_sets(CostModel::Fabric::NodeLayout& l) {
  const std::size_t masks = std::size_t{1} << l.slots;
  l.worst_of_mask.resize(masks);
  l.gbps_of_mask.resize(masks);
  std::vector<int> locals;
  for (std::size_t m = 0; m < masks; ++m) {
    locals.clear();
    for (int s = 0; s < l.slots; ++s) {
      if (((m >> s) & 1U) != 0) locals.push_back(s);
    }
    std::tie(l.worst_of_mask[m], l.gbps_of_mask[m]) = worst_pair(l, locals.data(), static_cast<int>(locals.size()));
  }
}

// The GPUs' compute capability: the catalog's, else read from the model name; 0 for CPU slots.
int gpu_sm(const topology::NodeTopology& node) {
  for (const auto& t : topology::node_types()) {
    if (!node.node_type.empty() && t.name == node.node_type) return t.sm;
  }
  const std::string& model = node.slots.empty() ? std::string() : node.slots.front().model;
  static constexpr std::array<std::pair<std::string_view, int>, 9> kByName = {
      {{"B200", 100}, {"B100", 100}, {"H100", 90}, {"H200", 90}, {"H800", 90}, {"H20", 90}, {"A100", 80}, {"A800", 80}, {"V100", 70}}};
  for (const auto& [name, sm] : kByName) {
    if (model.find(name) != std::string::npos) return sm;
  }
  return 80;  // an unknown GPU is priced as Ampere
}

// The network's latency beyond NCCL's table, from the 8-byte all_reduce of published two-node
// runs (tests/data/published): 2 × p5.48xlarge 69 µs, 2 × p4de.24xlarge 164 µs, where NCCL's
// tree LL with InfiniBand's latency says 25 µs. EFA NICs of unknown platforms are priced like
// p5's; InfiniBand and RoCE as NCCL's table.
double net_latency_us(const topology::NodeTopology& node) {
  constexpr double kP5Efa = 22.0, kP4Efa = 70.0;
  if (node.node_type.starts_with("p5")) return kP5Efa;
  if (node.node_type.starts_with("p4d")) return kP4Efa;
  const bool efa = std::any_of(node.nics.begin(), node.nics.end(), [](const auto& n) { return n.kind == topology::NicKind::efa; });
  return efa ? kP5Efa : 0.0;
}

void gpu_facts(const topology::NodeTopology& node, CostModel::Fabric::NodeLayout& l) {
  l.gpu = !node.slots.empty() &&
          std::all_of(node.slots.begin(), node.slots.end(), [](const auto& s) { return s.kind == topology::SlotKind::gpu; });
  if (!l.gpu) return;
  l.sm = gpu_sm(node);
  l.nvswitch = l.slots > 1;
  for (int a = 0; a < l.slots; ++a) {
    for (int b = 0; b < l.slots; ++b) {
      if (a != b && l.link[static_cast<std::size_t>(a * l.slots + b)] != LinkClass::NVL) l.nvswitch = false;
    }
  }
  l.amd_cpu = node.cpu.find("AMD") != std::string::npos;
  l.net_latency_us = net_latency_us(node);
}

CostModel::Fabric::NodeLayout node_layout(const topology::NodeTopology& node, const CostParams& params) {
  if (node.nics.size() > 64)
    throw InputError("the cost model handles at most 64 NICs per node (a node has " + std::to_string(node.nics.size()) + ")");
  CostModel::Fabric::NodeLayout l;
  l.slots = node.slot_count();
  nic_classes(node, params, l);
  std::map<int, int> switch_ids;
  for (const auto& slot : node.slots) {
    int id = -1;
    if (slot.pci_switch >= 0) id = switch_ids.emplace(slot.pci_switch, static_cast<int>(switch_ids.size())).first->second;
    l.pcie_switch.push_back(id);
  }
  l.switches = static_cast<int>(switch_ids.size());
  for (int a = 0; a < l.slots; ++a) {
    for (int b = 0; b < l.slots; ++b) {
      const LinkClass c = node.links.empty() ? (a == b ? LinkClass::LOC : LinkClass::SYS) : node.link(a, b);
      l.link.push_back(c);
      l.link_gbps.push_back(params[c].bandwidth_gbps);
    }
  }
  if (l.slots <= CostModel::Fabric::kTabulated) tabulate_slot_sets(l);
  gpu_facts(node, l);
  return l;
}

}  // namespace

CostModel::CostModel(const topology::ClusterTopology& topo, CostParams params, std::optional<Workload> workload)
    : params_(std::move(params)), workload_(std::move(workload)), fabric_(std::make_unique<Fabric>()) {
  Fabric& f = *fabric_;
  for (int i = 0; i < topo.layout_count(); ++i) f.layouts.push_back(node_layout(topo.layout(i), params_));
  f.slots = topo.slot_count();
  for (int n = 0; n < topo.node_count(); ++n) {
    f.layout_of.push_back(topo.layout_of(n));
    f.first_slot.push_back(topo.first_slot_of(n));
    f.class_base.push_back(f.total_classes);
    f.switch_base.push_back(f.total_switches);
    f.total_classes += static_cast<int>(f.at(n).class_gbps.size());
    f.total_switches += f.at(n).switches;
  }
  f.first_slot.push_back(f.slots);
  f.node_of.resize(static_cast<std::size_t>(f.slots));
  f.local_of.resize(static_cast<std::size_t>(f.slots));
  for (int n = 0; n < topo.node_count(); ++n) {
    for (int s = f.first_slot[static_cast<std::size_t>(n)]; s < f.first_slot[static_cast<std::size_t>(n) + 1]; ++s) {
      f.node_of[static_cast<std::size_t>(s)] = n;
      f.local_of[static_cast<std::size_t>(s)] = s - f.first_slot[static_cast<std::size_t>(n)];
    }
  }
  f.nodes = topo.node_count();
}

CostModel::~CostModel() = default;
CostModel::CostModel(CostModel&&) noexcept = default;
CostModel& CostModel::operator=(CostModel&&) noexcept = default;

int CostModel::slot_count() const { return fabric_->slots; }

void CostScratch::Buffers::fit(const CostModel::Fabric& f) {
  if (members.size() < static_cast<std::size_t>(f.slots)) members.resize(static_cast<std::size_t>(f.slots));
  if (class_users.size() != static_cast<std::size_t>(f.total_classes)) class_users.assign(static_cast<std::size_t>(f.total_classes), 0);
  if (switch_users.size() != static_cast<std::size_t>(f.total_switches)) switch_users.assign(static_cast<std::size_t>(f.total_switches), 0);
  if (node_egress.size() != static_cast<std::size_t>(f.nodes)) node_egress.assign(static_cast<std::size_t>(f.nodes), 0.0);
}

namespace {

using Fabric = CostModel::Fabric;
using Scratch = CostScratch::Buffers;
using detail::Run;

// Splits the sorted members [begin, end) into runs, one per node, with what the members of each
// see; appends them to the scratch's runs.
void find_runs(const Fabric& f, Scratch& s, int begin, int end) {
  const int* slots = s.members.data();
  for (int i = begin; i < end;) {
    const int node = f.node_of[static_cast<std::size_t>(slots[i])];
    const auto& l = f.at(node);
    int j = i;
    std::uint64_t rail = 0, mask = 0;
    for (; j < end && f.node_of[static_cast<std::size_t>(slots[j])] == node; ++j) {
      const int local = f.local_of[static_cast<std::size_t>(slots[j])];
      rail |= l.rail[static_cast<std::size_t>(local)];
      if (!l.worst_of_mask.empty()) mask |= 1ULL << local;
    }
    Run& r = s.runs.emplace_back(Run{node, i, j, LinkClass::LOC, kInf, rail});
    if (!l.worst_of_mask.empty()) {
      r.worst = l.worst_of_mask[mask];
      r.gbps = l.gbps_of_mask[mask];
    } else {
      // Large nodes (CPU slots): the pair loop over the run's members.
      s.locals.clear();
      for (int k = i; k < j; ++k) s.locals.push_back(f.local_of[static_cast<std::size_t>(slots[k])]);
      std::tie(r.worst, r.gbps) = worst_pair(l, s.locals.data(), static_cast<int>(s.locals.size()));
    }
    i = j;
  }
}

// Every group's members sorted by slot, so that its members on one node form a run.
void runs_of_all_groups(const Fabric& f, const FlatGroups& g, std::span<const int> slot_of_rank, Scratch& s) {
  s.runs.clear();
  s.groups.clear();
  for (int gi = 0; gi < g.count(); ++gi) {
    const int begin = gi * g.size;
    int* slots = s.members.data() + begin;
    const auto members = g.group(gi);
    for (int i = 0; i < g.size; ++i) slots[i] = slot_of_rank[static_cast<std::size_t>(members[static_cast<std::size_t>(i)])];
    if (!std::is_sorted(slots, slots + g.size)) std::sort(slots, slots + g.size);
    const int first_run = static_cast<int>(s.runs.size());
    find_runs(f, s, begin, begin + g.size);
    const int end_run = static_cast<int>(s.runs.size());
    s.groups.push_back({first_run, end_run, end_run - first_run});
  }
}

// Node 0's run of each group alone, for node-symmetric placements: a group has the same local
// slots on each of its nodes and spans n / (its members on node 0) nodes, and every node carries
// the flows node 0 carries. False when the placement is visibly not symmetric.
bool runs_on_node0(const Fabric& f, const FlatGroups& g, std::span<const int> node0_rank, Scratch& s) {
  const auto& l = f.at(0);
  s.pieces.clear();
  for (int slot = 0; slot < l.slots; ++slot) {
    const int gi = g.group_of_rank[static_cast<std::size_t>(node0_rank[static_cast<std::size_t>(slot)])];
    auto it = std::find_if(s.pieces.begin(), s.pieces.end(), [gi](const detail::NodePiece& x) { return x.group == gi; });
    if (it == s.pieces.end()) it = s.pieces.insert(s.pieces.end(), detail::NodePiece{gi});
    it->mask |= 1ULL << slot;
    ++it->count;
  }
  for (const auto& x : s.pieces) {
    if (g.size % x.count != 0) return false;
  }
  s.runs.clear();
  s.groups.clear();
  int end = 0;  // node 0's slots are its local slots
  for (const auto& x : s.pieces) {
    const int begin = end;
    for (std::uint64_t m = x.mask; m != 0; m &= m - 1) s.members[static_cast<std::size_t>(end++)] = std::countr_zero(m);
    const int first_run = static_cast<int>(s.runs.size());
    find_runs(f, s, begin, end);  // one run: every member is on node 0
    s.groups.push_back({first_run, static_cast<int>(s.runs.size()), g.size / x.count});
  }
  return true;
}

// Adds one flow to each NIC class of `rail` on `node`.
void count_users(const Fabric& f, Scratch& s, int node, std::uint64_t rail) {
  for (; rail != 0; rail &= rail - 1) {
    const auto c = static_cast<std::size_t>(f.class_base[static_cast<std::size_t>(node)] + std::countr_zero(rail));
    if (s.class_users[c]++ == 0) s.touched_classes.push_back(static_cast<int>(c));
  }
}

// Adds one flow to each PCIe switch the members of `r` sit under.
void count_switch_users(const Fabric& f, Scratch& s, const Run& r) {
  const auto& l = f.at(r.node);
  std::uint64_t seen = 0;
  for (int i = r.begin; i < r.end; ++i) {
    const int sw = l.pcie_switch[static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(s.members[static_cast<std::size_t>(i)])])];
    if (sw < 0 || sw >= 64 || ((seen >> sw) & 1U) != 0) continue;
    seen |= 1ULL << sw;
    const auto id = static_cast<std::size_t>(f.switch_base[static_cast<std::size_t>(r.node)] + sw);
    if (s.switch_users[id]++ == 0) s.touched_switches.push_back(static_cast<int>(id));
  }
}

// The most flows on one PCIe switch among those the members of `r` sit under (at least 1).
int switch_sharing(const Fabric& f, const Scratch& s, const Run& r) {
  const auto& l = f.at(r.node);
  int sharing = 1;
  for (int i = r.begin; i < r.end; ++i) {
    const int sw = l.pcie_switch[static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(s.members[static_cast<std::size_t>(i)])])];
    if (sw >= 0 && sw < 64)
      sharing = std::max(sharing, s.switch_users[static_cast<std::size_t>(f.switch_base[static_cast<std::size_t>(r.node)] + sw)]);
  }
  return sharing;
}

// What the NIC classes of `rail` on `node` give one flow when the k flows on a class share it as
// k^gamma: gamma 1 is a fair share, 0 the flow alone, between them a calibration's fitted sharing.
double reachable_gbps(const Fabric& f, const Scratch& s, int node, std::uint64_t rail, double gamma) {
  const auto& l = f.at(node);
  double gbps = 0;
  for (; rail != 0; rail &= rail - 1) {
    const int c = std::countr_zero(rail);
    const int users = std::max(1, s.class_users[static_cast<std::size_t>(f.class_base[static_cast<std::size_t>(node)] + c)]);
    const double share = gamma == 0.0 ? 1.0 : gamma == 1.0 ? users : std::pow(users, gamma);
    gbps += l.class_gbps[static_cast<std::size_t>(c)] / share;
  }
  return gbps;
}

// The sharing the uncalibrated model prices NICs with: a fair share under contention, else none.
double fair_share(const CostParams& params) { return params.contention ? 1.0 : 0.0; }

// The sharing exponent of the calibration for NICs (`nic`) or switch uplinks; 1 (a fair share)
// without a calibration or where it has none.
double sharing_exponent(const CostParams& params, bool nic) {
  if (!params.calibration) return 1.0;
  const auto& sharing = params.calibration->sharing;
  return (nic ? sharing.nic_exponent : sharing.uplink_exponent).value_or(1.0);
}

// The most flows on one NIC class of `rail` on `node` (at least 1).
int rail_users(const Fabric& f, const Scratch& s, int node, std::uint64_t rail) {
  int most = 1;
  for (; rail != 0; rail &= rail - 1)
    most = std::max(most, s.class_users[static_cast<std::size_t>(f.class_base[static_cast<std::size_t>(node)] + std::countr_zero(rail))]);
  return most;
}

int max_users(const Scratch& s) {
  int most = 0;
  for (int c : s.touched_classes) most = std::max(most, s.class_users[static_cast<std::size_t>(c)]);
  return most;
}

void reset(Scratch& s) {
  for (int c : s.touched_classes) s.class_users[static_cast<std::size_t>(c)] = 0;
  for (int sw : s.touched_switches) s.switch_users[static_cast<std::size_t>(sw)] = 0;
  for (int node : s.touched_nodes) s.node_egress[static_cast<std::size_t>(node)] = 0;
  s.touched_classes.clear();
  s.touched_switches.clear();
  s.touched_nodes.clear();
}

// Pass 1 of the collectives' pricing: the flows of every group on each NIC class, PCIe switch
// and node, and where the groups lie.
void count_flows(const Fabric& f, Scratch& s, double n, DimShape& shape) {
  for (const auto& g : s.groups) {
    const bool multi = g.nodes > 1;
    shape.crosses_nodes |= multi;
    shape.max_nodes_per_group = std::max(shape.max_nodes_per_group, g.nodes);
    for (int k = g.first_run; k < g.end_run; ++k) {
      const Run& r = s.runs[static_cast<std::size_t>(k)];
      shape.worst_link = std::max(shape.worst_link, multi ? LinkClass::NET : r.worst);
      if (multi) {
        count_users(f, s, r.node, r.rail);
        const double local = r.end - r.begin;
        if (s.node_egress[static_cast<std::size_t>(r.node)] == 0) s.touched_nodes.push_back(r.node);
        s.node_egress[static_cast<std::size_t>(r.node)] += local * (n - local) / n;
      }
      if (crosses_pcie_uplink(r.worst)) count_switch_users(f, s, r);
    }
  }
  shape.max_nic_flows = max_users(s);
}

// Each distinct communicator once, with NCCL's tables for it, so that pricing it at many sizes
// searches its graphs once.
void add_unique(std::vector<nccl::Tuned>& comms, const nccl::Communicator& c) {
  if (std::none_of(comms.begin(), comms.end(), [&](const nccl::Tuned& t) { return t.comm == c; })) comms.push_back(nccl::tuned(c));
}

// One GPU group as NCCL sees it: its GPUs, nodes and links; per node one network device per NIC
// class its members reach, each giving what the class gives one flow, with the dimension's other
// groups sharing it (and alone). Only with CostParams::nccl_tuning: nothing else reads them.
void add_gpu_group(const Fabric& f, const CostParams& params, const Scratch& s, const detail::PricedGroup& g, int n, DimShape& shape) {
  nccl::Communicator c{.sm = 1000,
                       .ranks = n,
                       .nodes = g.nodes,
                       .intra_gbps = kInf,
                       .nvlink = true,
                       .nvswitch = true,
                       .nccl_version = params.nccl_version,
                       .allowed = params.nccl_allowed};
  double own_gbps = 0;
  for (int k = g.first_run; k < g.end_run; ++k) {
    const Run& r = s.runs[static_cast<std::size_t>(k)];
    const auto& l = f.at(r.node);
    if (!l.gpu) return;
    c.sm = std::min(c.sm, l.sm);
    c.amd_cpu |= l.amd_cpu;
    c.net_latency_us = std::max(c.net_latency_us, l.net_latency_us);
    c.nvswitch &= l.nvswitch;
    if (r.end - r.begin > 1) {
      c.intra_gbps = std::min(c.intra_gbps, r.gbps);
      c.nvlink &= r.worst <= LinkClass::NVB;
    }
    if (g.nodes > 1) {
      const int devices = std::max(1, std::popcount(r.rail));
      const double shared = reachable_gbps(f, s, r.node, r.rail, fair_share(params)) / devices;
      const double own = reachable_gbps(f, s, r.node, r.rail, 0.0) / devices;
      c.nics = c.nics == 0 ? devices : std::min(c.nics, devices);
      c.nic_gbps = c.nic_gbps == 0 ? shared : std::min(c.nic_gbps, shared);
      own_gbps = own_gbps == 0 ? own : std::min(own_gbps, own);
    }
  }
  nccl::Communicator alone = c;
  alone.nic_gbps = own_gbps;
  add_unique(shape.gpu_shared, c);
  add_unique(shape.gpu_alone, alone);
}

// Pass 2: each group under that sharing. A ring is as slow as its slowest run inside a node or
// its slowest reachable NICs; an all-to-all as its busiest egress.
void price_groups(const Fabric& f, const CostParams& params, Scratch& s, double n, bool want_ring, bool want_a2a, DimShape& shape) {
  for (const auto& g : s.groups) {
    const bool multi = g.nodes > 1;
    double intra_gbps = kInf, inter_gbps = kInf, a2a_us_per_byte = 0;
    LinkClass worst = LinkClass::LOC;
    for (int k = g.first_run; k < g.end_run; ++k) {
      const Run& r = s.runs[static_cast<std::size_t>(k)];
      const auto& l = f.at(r.node);
      worst = std::max(worst, r.worst);
      double run_gbps = r.gbps;
      int uplink_flows = 1;
      if (crosses_pcie_uplink(r.worst)) {
        uplink_flows = switch_sharing(f, s, r);
        shape.max_uplink_flows = std::max(shape.max_uplink_flows, uplink_flows);
        if (params.contention) run_gbps /= uplink_flows;
      }
      if (r.end - r.begin > 1) s.inside_lines.add(r.gbps, r.gbps / std::pow(uplink_flows, sharing_exponent(params, false)), uplink_flows);
      intra_gbps = std::min(intra_gbps, run_gbps);
      const double local = r.end - r.begin;
      if (local > 1) a2a_us_per_byte = std::max(a2a_us_per_byte, (local - 1) / n * us_per_byte(run_gbps));
      if (!multi) continue;
      const double reach = reachable_gbps(f, s, r.node, r.rail, fair_share(params));
      inter_gbps = std::min(inter_gbps, reach);
      const double alone = params.contention ? reachable_gbps(f, s, r.node, r.rail, 0.0) : reach;
      s.net_lines.add(alone, reachable_gbps(f, s, r.node, r.rail, sharing_exponent(params, true)), rail_users(f, s, r.node, r.rail));
      // All-to-all: what leaves the node, over what the node (contention) or the group's own
      // rails (alone) can send.
      const double own = local * (n - local) / n;
      const double egress = params.contention ? s.node_egress[static_cast<std::size_t>(r.node)] : own;
      const double capacity = params.contention ? l.node_gbps : reach;
      a2a_us_per_byte = std::max(a2a_us_per_byte, egress * us_per_byte(capacity));
    }
    const double alpha = params[multi ? LinkClass::NET : worst].alpha_us;
    if (want_ring) add_profile(shape.ring, {alpha, us_per_byte(std::min(intra_gbps, inter_gbps))});
    if (want_a2a) add_profile(shape.all_to_all, {alpha, a2a_us_per_byte});
    if (params.nccl_tuning) add_gpu_group(f, params, s, g, static_cast<int>(n), shape);
  }
}

// Ring and all-to-all profiles of the groups the scratch holds as runs.
void price_collectives(const Fabric& f, const CostParams& params, Scratch& s, int group_size, bool want_ring, bool want_a2a,
                       DimShape& shape) {
  count_flows(f, s, group_size, shape);
  price_groups(f, params, s, group_size, want_ring, want_a2a, shape);
  reset(s);
}

// Neighbouring stages: pair (i, i+1) of each group, in Megatron's order; all boundaries send at
// once, sharing the sender's rail NICs.
void price_send_recv(const Fabric& f, const CostParams& params, Scratch& s, const FlatGroups& g, std::span<const int> slot_of_rank,
                     DimShape& shape) {
  auto for_pairs = [&](const auto& visit) {
    for (int gi = 0; gi < g.count(); ++gi) {
      const auto members = g.group(gi);
      for (int i = 0; i + 1 < g.size; ++i) {
        visit(slot_of_rank[static_cast<std::size_t>(members[static_cast<std::size_t>(i)])],
              slot_of_rank[static_cast<std::size_t>(members[static_cast<std::size_t>(i) + 1])]);
      }
    }
  };
  for_pairs([&](int a, int b) {
    const int na = f.node_of[static_cast<std::size_t>(a)];
    if (na != f.node_of[static_cast<std::size_t>(b)])
      count_users(f, s, na, f.at(na).rail[static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(a)])]);
  });
  shape.max_nic_flows = std::max(shape.max_nic_flows, max_users(s));
  for_pairs([&](int a, int b) {
    const int na = f.node_of[static_cast<std::size_t>(a)];
    const auto& l = f.at(na);
    const auto la = static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(a)]);
    // Without NCCL's tuning model the pairs are priced by their profiles alone.
    const bool gpus = params.nccl_tuning && l.gpu && f.at(f.node_of[static_cast<std::size_t>(b)]).gpu;
    nccl::Communicator pair{.sm = l.sm,
                            .ranks = 2,
                            .nodes = 1,
                            .intra_gbps = 0,
                            .nvlink = false,
                            .nvswitch = l.nvswitch,
                            .amd_cpu = l.amd_cpu,
                            .net_latency_us = l.net_latency_us,
                            .nccl_version = params.nccl_version};
    if (na == f.node_of[static_cast<std::size_t>(b)]) {
      const std::size_t k = la * static_cast<std::size_t>(l.slots) + static_cast<std::size_t>(f.local_of[static_cast<std::size_t>(b)]);
      shape.worst_link = std::max(shape.worst_link, l.link[k]);
      add_profile(shape.send_recv, {params[l.link[k]].alpha_us, us_per_byte(l.link_gbps[k])});
      s.inside_lines.add(l.link_gbps[k], l.link_gbps[k], 1);
      pair.intra_gbps = l.link_gbps[k];
      pair.nvlink = l.link[k] <= LinkClass::NVB;
      if (gpus) add_unique(shape.gpu_pairs, pair);
      return;
    }
    shape.crosses_nodes = true;
    shape.max_nodes_per_group = std::max(shape.max_nodes_per_group, 2);
    shape.worst_link = LinkClass::NET;
    const double reach = reachable_gbps(f, s, na, l.rail[la], fair_share(params));
    add_profile(shape.send_recv, {params[LinkClass::NET].alpha_us, us_per_byte(reach)});
    const double alone = params.contention ? reachable_gbps(f, s, na, l.rail[la], 0.0) : reach;
    s.net_lines.add(alone, reachable_gbps(f, s, na, l.rail[la], sharing_exponent(params, true)), rail_users(f, s, na, l.rail[la]));
    pair.nodes = 2;
    pair.nics = std::max(1, std::popcount(l.rail[la]));
    pair.nic_gbps = reach / pair.nics;
    if (gpus) add_unique(shape.gpu_pairs, pair);
  });
  reset(s);
}

// One GPU communicator's op, priced by NCCL's tuning model (the all-to-alls and send/recv by its
// point-to-point transfers). all_to_allv's busiest rank sends `skew` times the average.
OpEstimate gpu_op_estimate(const nccl::Tuned& c, Op op, std::uint64_t bytes, double skew) {
  const Family family = ops::info(op).family;
  if (family == Family::all_to_all || family == Family::point_to_point) {
    const auto busiest = static_cast<std::uint64_t>(static_cast<double>(bytes) * skew);
    const auto t = family == Family::all_to_all ? nccl::all_to_all(c, busiest) : nccl::send_recv(c, bytes);
    return {t.time_us, "p2p", std::string(nccl::to_string(t.protocol))};
  }
  const auto coll = family == Family::ring_all_reduce ? nccl::Collective::all_reduce
                    : op == Op::reduce_scatter        ? nccl::Collective::reduce_scatter
                                                      : nccl::Collective::all_gather;
  const auto choice = nccl::choose(c, coll, bytes);
  return {choice.time_us, std::string(nccl::to_string(choice.algorithm)), std::string(nccl::to_string(choice.protocol))};
}

}  // namespace

Score CostModel::score(const Layout& layout, const FlatParallelGroups& groups, std::span<const int> slot_of_rank,
                       bool node_symmetric) const {
  CostScratch scratch;
  return score(layout, groups, slot_of_rank, scratch, node_symmetric);
}

Score CostModel::score(const Layout& layout, const FlatParallelGroups& groups, std::span<const int> slot_of_rank, CostScratch& scratch,
                       bool node_symmetric) const {
  if (static_cast<int>(slot_of_rank.size()) != fabric_->slots) {
    throw InputError("the layout's world size " + std::to_string(slot_of_rank.size()) + " differs from the topology's " +
                     std::to_string(fabric_->slots) + " slots");
  }
  const auto traffic_list = traffic(layout);
  const Fabric& f = *fabric_;
  Scratch& s = scratch.buffers();
  s.fit(f);
  std::vector<int> node0_rank;
  if (node_symmetric && f.layouts.size() == 1 && f.at(0).slots <= 64) {
    node0_rank.resize(static_cast<std::size_t>(f.at(0).slots));
    for (std::size_t r = 0; r < slot_of_rank.size(); ++r) {
      if (slot_of_rank[r] < f.at(0).slots) node0_rank[static_cast<std::size_t>(slot_of_rank[r])] = static_cast<int>(r);
    }
  }
  Score score;
  for (Dim dim : kAllDims) {
    const FlatGroups& g = dim == Dim::dp ? groups.dp_cp : groups[dim];
    DimShape& shape = score.shape[static_cast<std::size_t>(dim)];
    shape.group_size = g.size;
    shape.groups = g.count();
    if (g.size <= 1) continue;
    std::array<bool, ops::kFamilyCount> want{};
    for (const auto& t : traffic_list) {
      if (t.dim == dim) want[static_cast<std::size_t>(ops::info(t.op).family)] = true;
    }
    const bool want_ring = want[static_cast<std::size_t>(Family::ring_all_reduce)] || want[static_cast<std::size_t>(Family::ring_gather)];
    const bool want_a2a = want[static_cast<std::size_t>(Family::all_to_all)];
    const bool want_p2p = want[static_cast<std::size_t>(Family::point_to_point)];
    s.net_lines = {};
    s.inside_lines = {};
    // A dimension without traffic still reports where its groups lie.
    if (want_ring || want_a2a || !want_p2p) {
      const bool on_node0 = !node0_rank.empty() && !g.group_of_rank.empty() && runs_on_node0(f, g, node0_rank, s);
      if (!on_node0) runs_of_all_groups(f, g, slot_of_rank, s);
      price_collectives(f, params_, s, g.size, want_ring, want_a2a, shape);
    }
    if (want_p2p) price_send_recv(f, params_, s, g, slot_of_rank, shape);
    // A dimension that crosses nodes is calibrated as NET: its NICs set the line.
    const detail::LineTally& lines = shape.crosses_nodes ? s.net_lines : s.inside_lines;
    shape.line_gbps = lines.alone_gbps;
    shape.shared_line_gbps = lines.shared_alone_gbps;
    shape.shared_line_flows = lines.shared_flows;
  }
  for (const auto& t : traffic_list) {
    const double us = t.calls_per_step * op_time_us(score.of(t.dim), t.op, t.bytes);
    score.dim_us[static_cast<std::size_t>(t.dim)] += us;
    score.total_us += us;
  }
  return score;
}

LinkClass calibration_link(const DimShape& shape) { return shape.crosses_nodes ? LinkClass::NET : shape.worst_link; }

int calibration_flows(const DimShape& shape, bool isolated) {
  if (isolated) return 1;
  switch (calibration_link(shape)) {
    case LinkClass::NET: return std::max(1, shape.shared_line_flows > 0 ? shape.shared_line_flows : shape.max_nic_flows);
    case LinkClass::PIX:
    case LinkClass::PXB:
    case LinkClass::PHB: return std::max(1, shape.max_uplink_flows);
    default: return 1;
  }
}

double calibration_line_gbps(const DimShape& shape, bool isolated) { return isolated ? shape.line_gbps : shape.shared_line_gbps; }

double CostModel::op_time_us(const DimShape& shape, Op op, std::uint64_t bytes, bool isolated) const {
  return op_estimate(shape, op, bytes, isolated).time_us;
}

OpEstimate CostModel::op_estimate(const DimShape& shape, Op op, std::uint64_t bytes, bool isolated) const {
  const int n = shape.group_size;
  if (n <= 1) return {0, "none", ""};
  // all_to_allv's busiest rank receives `skew` times the mean under the routing skew, in both models.
  const double skew = ops::info(op).traffic_matrix ? routing_imbalance(n, params_.a2av_skew) : 1.0;
  if (params_.calibration) {
    // Without contention every group runs alone, as in the α-β model.
    const auto busiest = static_cast<std::uint64_t>(static_cast<double>(bytes) * skew);
    const bool alone = isolated || !params_.contention;
    if (const auto t = calibrated_time_us(*params_.calibration, calibration_link(shape), op, n, busiest, calibration_flows(shape, alone),
                                          calibration_line_gbps(shape, alone)))
      return {*t, "calibrated", ""};
  }
  const Family family = ops::info(op).family;
  const auto& gpu = family == Family::point_to_point    ? shape.gpu_pairs
                    : (isolated || !params_.contention) ? shape.gpu_alone
                                                        : shape.gpu_shared;
  if (params_.nccl_tuning && !gpu.empty()) {
    OpEstimate slowest{-1, "", ""};
    for (const auto& c : gpu) {
      const OpEstimate e = gpu_op_estimate(c, op, bytes, skew);
      if (e.time_us > slowest.time_us) slowest = e;
    }
    return slowest;
  }
  // The α-β profiles already hold every group of the dimension running at once; `isolated`
  // changes nothing here (their sharing is in the profiles, not a term that could be removed).
  const std::vector<Profile>& profiles = family == Family::all_to_all       ? shape.all_to_all
                                         : family == Family::point_to_point ? shape.send_recv
                                                                            : shape.ring;
  // The all-to-all profile's coefficient already holds the shares that leave each node; the
  // others price nccl-tests' bus bytes.
  const double load = static_cast<double>(bytes) * (family == Family::all_to_all ? skew : busbw_factor(op, n));
  const double steps = detail::latency_steps(op, n);
  double worst = 0;
  for (const auto& p : profiles) worst = std::max(worst, steps * p.alpha_us + load * p.us_per_byte);
  return {worst, "alpha-beta", ""};
}

std::vector<OpTraffic> CostModel::traffic(const Layout& layout) const {
  if (workload_) return step_traffic(*workload_, layout);
  std::vector<OpTraffic> out;
  for (Dim d : kAllDims) {
    const int size = d == Dim::dp ? layout.dp() * layout.cp : layout.size(d);
    if (size <= 1) continue;
    // Without a workload, EP = 1 reads as a dense model: its expert grid (ETP = TP, EDP = DP)
    // would only count the dense traffic twice.
    if ((d == Dim::etp || d == Dim::edp) && layout.ep == 1) continue;
    const auto ops = typical_ops(d);
    // Each dimension weighs the same: the mean over its typical ops of the sweep's sum.
    for (Op op : ops) {
      for (auto bytes : params_.sweep_bytes) out.push_back({d, op, bytes, 1.0 / static_cast<double>(ops.size())});
    }
  }
  return out;
}

}  // namespace meshbench::mapping
