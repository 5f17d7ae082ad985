// The probe's choice of slot pairs (docs/run.md, "Calibrating"). Every arrangement pairs all
// slots, because a run measures every group of a dimension: what one arrangement is meant to
// measure (a link class, a number of flows through one NIC or switch uplink) must be the slowest
// thing any of its pairs does, so the other pairs are placed over faster classes.
#include "bench/calibration/probe_plan.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "common/sizes.hpp"

namespace meshbench::bench {

using topology::LinkClass;

namespace {

// Paths that leave a PCIe switch without NVLink share its uplink (as the cost model counts them).
bool leaves_switch(LinkClass c) { return c == LinkClass::PXB || c == LinkClass::PHB || c == LinkClass::SYS; }

// The NICs a slot's traffic off the node can use: its rails, else any NIC of the node (one
// virtual NIC where the node lists none), as the cost model reads them.
std::vector<int> nics_of(const topology::NodeTopology& node, int local) {
  if (static_cast<std::size_t>(local) < node.rails.size() && !node.rails[static_cast<std::size_t>(local)].empty())
    return node.rails[static_cast<std::size_t>(local)];
  std::vector<int> all;
  for (int n = 0; n < std::max<int>(1, static_cast<int>(node.nics.size())); ++n) all.push_back(n);
  return all;
}

ProbeTarget target_of(const topology::ClusterTopology& t, const SlotPairs& pairs) {
  ProbeTarget out{LinkClass::LOC, 0, 0};
  std::map<std::pair<int, int>, int> nic_users, switch_users;
  for (const auto& [a, b] : pairs) {
    const int na = t.node_of(a), nb = t.node_of(b);
    if (na != nb) {
      out.link = LinkClass::NET;
      for (const int s : {a, b}) {
        const int node = t.node_of(s);
        for (int nic : nics_of(t.node(node), t.local_index(s))) out.nic_flows = std::max(out.nic_flows, ++nic_users[{node, nic}]);
      }
      continue;
    }
    const LinkClass c = t.link(a, b);
    out.link = std::max(out.link, c);
    if (!leaves_switch(c)) continue;
    std::set<int> switches;
    for (const int s : {a, b}) {
      const int sw = t.node(na).slots[static_cast<std::size_t>(t.local_index(s))].pci_switch;
      if (sw >= 0) switches.insert(sw);
    }
    for (int sw : switches) out.uplink_flows = std::max(out.uplink_flows, ++switch_users[{na, sw}]);
  }
  return out;
}

// One node's slots while an arrangement is built: which are taken.
struct NodeState {
  const topology::NodeTopology* node = nullptr;
  int first = 0;
  std::vector<bool> used;
};

std::vector<NodeState> empty_state(const topology::ClusterTopology& t) {
  std::vector<NodeState> nodes;
  for (int n = 0; n < t.node_count(); ++n) {
    nodes.push_back({&t.node(n), t.first_slot_of(n), std::vector<bool>(static_cast<std::size_t>(t.node(n).slot_count()), false)});
  }
  return nodes;
}

void take(NodeState& n, int local) { n.used[static_cast<std::size_t>(local)] = true; }
bool free_slot(const NodeState& n, int local) { return !n.used[static_cast<std::size_t>(local)]; }

// Pairs the free slots among `slots` over the fastest classes: the lowest free slot with its
// fastest free partner, and so on. False when a slot is left over.
bool pair_among(NodeState& n, const std::vector<int>& slots, SlotPairs& out) {
  bool complete = true;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const int a = slots[i];
    if (!free_slot(n, a)) continue;
    int best = -1;
    for (std::size_t j = i + 1; j < slots.size(); ++j) {
      const int b = slots[j];
      if (free_slot(n, b) && (best < 0 || n.node->link(a, b) < n.node->link(a, best))) best = b;
    }
    if (best < 0) {
      complete = false;
      continue;
    }
    take(n, a);
    take(n, best);
    out.emplace_back(n.first + std::min(a, best), n.first + std::max(a, best));
  }
  return complete;
}

std::vector<int> every_slot(const topology::NodeTopology& node) {
  std::vector<int> all(static_cast<std::size_t>(node.slot_count()));
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  return all;
}

// All of a node's free slots paired over the fastest classes; false when one is left over.
bool pair_rest(NodeState& n, SlotPairs& out) { return pair_among(n, every_slot(*n.node), out); }

// Pairs `a` with the first free slot of `candidates` joined to it by class `c`; false if none is.
bool pair_over(NodeState& n, int a, const std::vector<int>& candidates, LinkClass c, SlotPairs& out) {
  for (int b : candidates) {
    if (b == a || !free_slot(n, b) || n.node->link(a, b) != c) continue;
    take(n, a);
    take(n, b);
    out.emplace_back(n.first + std::min(a, b), n.first + std::max(a, b));
    return true;
  }
  return false;
}

// 1, 2, 4, … below `most`, then `most`.
std::vector<int> flow_counts(int most) {
  std::vector<int> out;
  for (int k = 1; k < most; k *= 2) out.push_back(k);
  if (most >= 1) out.push_back(most);
  return out;
}

// Every node: as many pairs of class `c` as the greedy pass finds, the rest over faster classes.
std::optional<SlotPairs> pairs_of_class(const topology::ClusterTopology& t, LinkClass c) {
  SlotPairs pairs;
  for (auto& n : empty_state(t)) {
    const auto all = every_slot(*n.node);
    for (int a : all) {
      if (free_slot(n, a)) pair_over(n, a, all, c, pairs);
    }
    if (!pair_rest(n, pairs)) return std::nullopt;
  }
  return pairs;
}

// The local slots under each PCIe switch of a node, the most populated switch first.
std::vector<std::vector<int>> switch_members(const topology::NodeTopology& node) {
  std::map<int, std::vector<int>> by_switch;
  for (const auto& s : node.slots) {
    if (s.pci_switch >= 0) by_switch[s.pci_switch].push_back(s.index);
  }
  std::vector<std::vector<int>> out;
  for (auto& entry : by_switch) out.push_back(std::move(entry.second));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.size() > b.size(); });
  return out;
}

// Every node: k pairs of class `c` from its fullest switch to the other switches, the rest over
// the fastest classes.
std::optional<SlotPairs> pairs_through_uplink(const topology::ClusterTopology& t, LinkClass c, int k) {
  SlotPairs pairs;
  for (auto& n : empty_state(t)) {
    const auto switches = switch_members(*n.node);
    if (switches.size() < 2) return std::nullopt;
    std::vector<int> others;
    for (std::size_t i = 1; i < switches.size(); ++i) others.insert(others.end(), switches[i].begin(), switches[i].end());
    int placed = 0;
    for (int a : switches.front()) {
      if (placed == k) break;
      if (pair_over(n, a, others, c, pairs)) ++placed;
    }
    if (placed < k) return std::nullopt;
    // The switch's remaining slots pair among themselves first, so that no more of its pairs leave it.
    pair_among(n, switches.front(), pairs);
    if (!pair_rest(n, pairs)) return std::nullopt;
  }
  return pairs;
}

// The local slots that reach a node's most shared NIC (the lowest-numbered NIC on ties).
std::vector<int> most_shared_nic_users(const topology::NodeTopology& node) {
  std::map<int, std::vector<int>> users;
  for (int s = 0; s < node.slot_count(); ++s) {
    for (int nic : nics_of(node, s)) users[nic].push_back(s);
  }
  std::vector<int> best;
  for (auto& entry : users) {
    if (entry.second.size() > best.size()) best = entry.second;
  }
  return best;
}

// Nodes in pairs (0, 1), (2, 3), …: on each, k slots reaching the most shared NIC send to their
// twins (the same local slot) on the partner node — plus one slot outside that set when the rest
// of the node could not be paired otherwise — and the other slots pair inside their node. A
// node without a partner pairs inside itself. k = 0: every slot pairs with its twin.
std::optional<SlotPairs> pairs_across_nodes(const topology::ClusterTopology& t, int k) {
  SlotPairs pairs;
  auto nodes = empty_state(t);
  for (std::size_t p = 0; p + 1 < nodes.size(); p += 2) {
    NodeState& a = nodes[p];
    NodeState& b = nodes[p + 1];
    const int common = std::min(a.node->slot_count(), b.node->slot_count());
    std::vector<int> senders;
    if (k == 0) {
      for (int s = 0; s < common; ++s) senders.push_back(s);
    } else {
      for (int s : most_shared_nic_users(*a.node)) {
        if (s < common && static_cast<int>(senders.size()) < k) senders.push_back(s);
      }
      if (static_cast<int>(senders.size()) < k) return std::nullopt;
      if ((a.node->slot_count() - k) % 2 != 0 || (b.node->slot_count() - k) % 2 != 0) {
        const auto shared = most_shared_nic_users(*a.node);
        int filler = -1;
        for (int s = 0; s < common && filler < 0; ++s) {
          if (std::find(shared.begin(), shared.end(), s) == shared.end()) filler = s;
        }
        if (filler < 0) return std::nullopt;
        senders.push_back(filler);
      }
    }
    for (int s : senders) {
      take(a, s);
      take(b, s);
      pairs.emplace_back(a.first + s, b.first + s);
    }
  }
  for (auto& n : nodes) {
    if (!pair_rest(n, pairs)) return std::nullopt;
  }
  return pairs;
}

SlotPairs canonical(SlotPairs pairs) {
  for (auto& p : pairs) {
    if (p.first > p.second) std::swap(p.first, p.second);
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// Intra-node classes between two distinct slots of some node.
std::set<LinkClass> intra_classes(const topology::ClusterTopology& t) {
  std::set<LinkClass> out;
  for (int l = 0; l < t.layout_count(); ++l) {
    const auto& node = t.layout(l);
    for (int a = 0; a < node.slot_count(); ++a) {
      for (int b = a + 1; b < node.slot_count(); ++b) out.insert(node.link(a, b));
    }
  }
  return out;
}

}  // namespace

std::vector<PairArrangement> probe_arrangements(const topology::ClusterTopology& t) {
  std::vector<PairArrangement> out;
  std::set<SlotPairs> seen;
  const auto add = [&](std::string name, std::string how, const std::optional<SlotPairs>& pairs, const ProbeTarget& wanted) {
    if (!pairs) return;
    const ProbeTarget got = target_of(t, *pairs);
    if (got.link != wanted.link || (wanted.nic_flows > 0 && got.nic_flows != wanted.nic_flows) ||
        (wanted.uplink_flows > 0 && got.uplink_flows != wanted.uplink_flows))
      return;
    if (!seen.insert(canonical(*pairs)).second) return;
    out.push_back({std::move(name), std::move(how), *pairs, got});
  };
  if (t.slot_count() % 2 != 0) return out;
  const auto classes = intra_classes(t);
  for (LinkClass c : classes) {
    const std::string name(topology::to_string(c));
    add("probe:" + name, "slot pairs of class " + name + " on every node, the other slots paired over faster classes", pairs_of_class(t, c),
        {c, 0, 0});
  }
  for (LinkClass c : classes) {
    if (!leaves_switch(c)) continue;
    int most = 0;
    for (int l = 0; l < t.layout_count(); ++l) {
      const auto members = switch_members(t.layout(l));
      if (!members.empty()) most = std::max(most, static_cast<int>(members.front().size()));
    }
    const std::string name(topology::to_string(c));
    for (int k : flow_counts(most)) {
      add("probe:" + name + "-uplink" + std::to_string(k),
          std::to_string(k) + " pair(s) of class " + name + " leaving one PCIe switch on every node, the rest over faster classes",
          pairs_through_uplink(t, c, k), {c, 0, k});
    }
  }
  if (t.node_count() >= 2) {
    int most = 0;
    for (int l = 0; l < t.layout_count(); ++l) most = std::max(most, static_cast<int>(most_shared_nic_users(t.layout(l)).size()));
    for (int k : flow_counts(most)) {
      add("probe:NET-nic" + std::to_string(k),
          std::to_string(k) + " pair(s) per node pair across nodes through the most shared NIC, the rest inside their nodes",
          pairs_across_nodes(t, k), {LinkClass::NET, k, 0});
    }
    add("probe:NET-all", "every slot paired with the same slot of the partner node", pairs_across_nodes(t, 0), {LinkClass::NET, 0, 0});
  }
  return out;
}

namespace {

// The mapping whose `dim` groups are the arrangement's pairs: group j's two ranks sit on pair j.
mapping::Mapping mapping_on_pairs(const PairArrangement& a, const mapping::Layout& layout, mapping::Dim dim) {
  std::vector<int> identity(static_cast<std::size_t>(layout.world));
  for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int>(i);
  const auto groups = mapping::make_mapping(a.name, a.how, layout, identity).groups[dim];
  if (groups.size() != a.pairs.size())
    throw std::logic_error("probe: " + std::to_string(groups.size()) + " groups for " + std::to_string(a.pairs.size()) + " pairs");
  std::vector<int> slot_of_rank(identity.size());
  for (std::size_t j = 0; j < groups.size(); ++j) {
    slot_of_rank[static_cast<std::size_t>(groups[j][0])] = a.pairs[j].first;
    slot_of_rank[static_cast<std::size_t>(groups[j][1])] = a.pairs[j].second;
  }
  return mapping::make_mapping(a.name, a.how, layout, std::move(slot_of_rank));
}

}  // namespace

std::vector<ProbeLayout> plan_probes(const topology::ClusterTopology& topology) {
  const int world = topology.slot_count();
  if (world < 2 || world % 2 != 0) return {};
  const auto arrangements = probe_arrangements(topology);
  // TP2 with EP2 (ETP 1) in Megatron's default order: the TP and EP groups are the same pairs.
  ProbeLayout collectives{"collectives",
                          {world, 2, 1, 1, 2, 1, mapping::kDefaultOrder},
                          {mapping::Dim::tp, mapping::Dim::ep},
                          {mapping::Op::all_reduce, mapping::Op::all_gather, mapping::Op::reduce_scatter, mapping::Op::all_to_all},
                          {}};
  ProbeLayout p2p{"p2p", {world, 1, 1, 2, 1, 0, mapping::kDefaultOrder}, {mapping::Dim::pp}, {mapping::Op::send_recv}, {}};
  for (auto* probe : {&collectives, &p2p}) {
    mapping::validate(probe->layout);
    for (const auto& a : arrangements) probe->mappings.push_back({mapping_on_pairs(a, probe->layout, probe->dims.front()), a.target});
  }
  return {collectives, p2p};
}

std::vector<std::uint64_t> probe_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor) {
  auto sizes = size_sweep(min_bytes, max_bytes, factor);
  if (sizes.back() != max_bytes) sizes.push_back(max_bytes);
  return sizes;
}

bool nics_are_shared(const topology::ClusterTopology& topology) {
  if (topology.node_count() < 2) return false;
  for (int l = 0; l < topology.layout_count(); ++l) {
    if (most_shared_nic_users(topology.layout(l)).size() > 1) return true;
  }
  return false;
}

}  // namespace meshbench::bench
