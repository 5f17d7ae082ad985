// Candidate generation: orders, topology-aware heuristics, a search, a random baseline; then
// duplicates dropped by structure and the rest ranked by the cost model.
#include "mapping/candidates.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>

#include "atoms.hpp"
#include "common/error.hpp"
#include "random_placement.hpp"
#include "search.hpp"

namespace meshbench::mapping {

namespace {

using detail::Atom;
using detail::AtomPlacement;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A candidate before duplicates are dropped; its groups are shared with every candidate of the
// same order.
struct Draft {
  std::string name, how, kind;
  Layout layout;
  const FlatParallelGroups* groups = nullptr;
  std::vector<int> slot_of_rank;
  Score score;
  // For the search: the atoms and placement that made it, when it was built from atoms.
  const std::vector<Atom>* atoms = nullptr;
  AtomPlacement placement;
  std::vector<std::string> aliases;
};

Draft draft(std::string name, std::string how, std::string kind, const Layout& layout) {
  Draft d;
  d.name = std::move(name);
  d.how = std::move(how);
  d.kind = std::move(kind);
  d.layout = layout;
  return d;
}

// A topology-aware heuristic: which dimensions fill a node first (earlier = inner).
struct Heuristic {
  const char* name;
  const char* how;
  std::array<Dim, 7> priority;  // dims in fill order; an atom takes its dense or expert dim's best place
  bool needs_cp = false;        // only worth building when CP > 1
};

constexpr Heuristic kHeuristics[] = {
    {"tp-ep-in-node",
     "Fills each node (NVLink domain) with TP ranks, then EP, then CP, then DP, and spreads PP stages across nodes; slots in a node "
     "taken in NUMA / PCIe switch / NIC order.",
     {Dim::tp, Dim::etp, Dim::ep, Dim::cp, Dim::dp, Dim::edp, Dim::pp}},
    {"tp-in-node+rail-dp",
     "Fills each node with TP, EP, CP and then PP ranks so that DP and EDP peers sit on the same local GPU index on different "
     "nodes: the same NIC rail.",
     {Dim::tp, Dim::etp, Dim::ep, Dim::cp, Dim::pp, Dim::dp, Dim::edp}},
    {"ep-in-node",
     "Fills each node with EP ranks first, then TP, CP, DP, for MoE layers whose all-to-all outweighs TP; PP stages across nodes.",
     {Dim::ep, Dim::tp, Dim::etp, Dim::cp, Dim::dp, Dim::edp, Dim::pp}},
    {"cp-in-node",
     "Fills each node with TP, then CP ranks (ring attention), then EP, DP; PP stages across nodes.",
     {Dim::tp, Dim::etp, Dim::cp, Dim::ep, Dim::dp, Dim::edp, Dim::pp},
     true},
};

int rank_in(const std::array<Dim, 7>& priority, Dim d) {
  return static_cast<int>(std::find(priority.begin(), priority.end(), d) - priority.begin());
}

// Atoms sorted by their dims' place in `priority` (stable: rank order among equals).
std::vector<int> prioritised(const std::vector<Atom>& atoms, const std::array<Dim, 7>& priority) {
  std::vector<int> order(atoms.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int j) {
    const Atom& a = atoms[static_cast<std::size_t>(j)];
    return std::min(rank_in(priority, a.dense), rank_in(priority, a.expert));
  };
  std::stable_sort(order.begin(), order.end(), [&key](int a, int b) { return key(a) < key(b); });
  return order;
}

bool belongs_to(const Atom& a, Dim d) { return a.dense == d || a.expert == d || (d == Dim::dp && a.dense == Dim::cp); }

// Two slots of a node share a NIC (or every slot lacks a rail of its own).
bool shares_nics(const topology::NodeTopology& node) {
  std::map<int, int> users;
  for (const auto& rail : node.rails) {
    for (int nic : rail) {
      if (++users[nic] > 1) return true;
    }
  }
  return node.rails.empty() && node.slot_count() > 1;
}

bool equal_labels(const FlatParallelGroups& ga, const std::vector<int>& a, const FlatParallelGroups& gb, const std::vector<int>& b) {
  for (Dim d : kAllDims) {
    if (group_labels(ga[d], a) != group_labels(gb[d], b)) return false;
  }
  return true;
}

std::string percent_faster(double before, double after) {
  if (before <= 0) return "0%";
  return std::to_string(static_cast<int>(std::lround(100.0 * (before - after) / before))) + "%";
}

}  // namespace

RankedCandidates generate_candidates(const Layout& layout, const topology::ClusterTopology& topo, const CostModel& model,
                                     const CandidateOptions& options) {
  if (layout.world != topo.slot_count()) {
    throw InputError("the layout's world size " + std::to_string(layout.world) + " differs from the topology's " +
                     std::to_string(topo.slot_count()) + " slots");
  }
  validate(layout);
  RankedCandidates result;
  auto& stats = result.stats;
  auto t0 = Clock::now();

  std::map<std::string, FlatParallelGroups> groups_by_order;
  std::map<std::string, std::vector<Atom>> atoms_by_order;
  auto groups_of = [&](const Layout& l) -> const FlatParallelGroups& {
    auto it = groups_by_order.find(l.order);
    if (it == groups_by_order.end()) it = groups_by_order.emplace(l.order, flat_rank_groups(l)).first;
    return it->second;
  };
  auto atoms_of = [&](const Layout& l) -> const std::vector<Atom>& {
    auto it = atoms_by_order.find(l.order);
    if (it == atoms_by_order.end()) it = atoms_by_order.emplace(l.order, detail::rank_atoms(l)).first;
    return it->second;
  };
  std::vector<Draft> drafts;
  CostScratch scratch;
  auto add = [&](Draft d) {
    d.groups = &groups_of(d.layout);
    const bool symmetric = d.atoms != nullptr && detail::node_aligned(*d.atoms, d.placement, topo);
    d.score = model.score(d.layout, *d.groups, d.slot_of_rank, scratch, symmetric);
    drafts.push_back(std::move(d));
  };
  auto best_so_far = [&drafts]() -> const Draft& {
    return *std::min_element(drafts.begin(), drafts.end(), [](const Draft& a, const Draft& b) { return a.score.total_us < b.score.total_us; });
  };

  // Every valid order, identity placement.
  for (const auto& order : valid_orders(layout)) {
    Draft d = draft("order:" + order, "Megatron order " + order + ", logical rank i on slot i.", "order", layout);
    d.layout.order = order;
    d.slot_of_rank.resize(static_cast<std::size_t>(layout.world));
    std::iota(d.slot_of_rank.begin(), d.slot_of_rank.end(), 0);
    d.atoms = &atoms_of(d.layout);
    d.placement.order.resize(d.atoms->size());
    std::iota(d.placement.order.begin(), d.placement.order.end(), 0);
    add(std::move(d));
  }

  // Topology-aware placements of the layout's own numbering.
  const auto& atoms = atoms_of(layout);
  const std::vector<int> local_order = topo.homogeneous() ? detail::topology_local_order(topo.node(0)) : std::vector<int>{};
  for (const auto& h : kHeuristics) {
    if (h.needs_cp && layout.cp == 1) continue;
    Draft d = draft(h.name, h.how, "heuristic", layout);
    d.atoms = &atoms;
    d.placement = {prioritised(atoms, h.priority), local_order};
    d.slot_of_rank = detail::place(atoms, d.placement, topo);
    add(std::move(d));
  }
  // Where GPUs share a NIC: the heaviest dimension that crosses nodes gets the pairs under one
  // PCIe switch, so one of its groups, not two, drives each shared NIC.
  if (topo.homogeneous() && topo.node_count() > 1 && shares_nics(topo.node(0))) {
    const Draft& best = best_so_far();
    Dim heavy = Dim::tp;
    double heaviest = -1;
    for (Dim dim : kAllDims) {
      if (best.score.of(dim).crosses_nodes && best.score[dim] > heaviest) {
        heaviest = best.score[dim];
        heavy = dim;
      }
    }
    auto order = prioritised(atoms, kHeuristics[0].priority);
    const auto it = std::find_if(order.begin(), order.end(), [&](int j) { return belongs_to(atoms[static_cast<std::size_t>(j)], heavy); });
    if (heaviest > 0 && it != order.end()) {
      std::rotate(order.begin(), it, it + 1);
      const std::string dim(to_string(heavy));
      Draft d = draft(dim + "-pairs-under-switch",
              "Puts pairs of " + dim + " ranks on GPUs that share a PCIe switch and NIC, so that one " + dim +
                  " group, not two, drives each shared NIC; otherwise like tp-ep-in-node.",
              "heuristic", layout);
      d.atoms = &atoms;
      d.placement = {std::move(order), local_order};
      d.slot_of_rank = detail::place(atoms, d.placement, topo);
      add(std::move(d));
    }
  }
  {
    Draft d = draft("random(seed=" + std::to_string(options.random_seed) + ")",
            "A uniformly random placement (splitmix64 Fisher-Yates, seed " + std::to_string(options.random_seed) + "): the baseline.",
            "random", layout);
    d.slot_of_rank = detail::random_placement(layout.world, options.random_seed);
    add(std::move(d));
  }
  stats.generate_s = seconds_since(t0);

  // The search, from the best structured candidate.
  auto t1 = Clock::now();
  if (options.search) {
    const Draft* seed = nullptr;
    for (const auto& d : drafts) {
      if (d.atoms != nullptr && (seed == nullptr || d.score.total_us < seed->score.total_us)) seed = &d;
    }
    const int budget = options.search_max_evaluations > 0 ? options.search_max_evaluations
                                                          : std::clamp(static_cast<int>(4'000'000LL / std::max(layout.world, 1)), 24, 400);
    AtomPlacement start = seed->placement;
    if (start.local_order.empty() && !local_order.empty()) {
      // An order's identity placement, made explicit so that local moves can apply to it.
      start.local_order.resize(local_order.size());
      std::iota(start.local_order.begin(), start.local_order.end(), 0);
    }
    const auto found = detail::local_search(*seed->atoms, start, seed->score, seed->layout, *seed->groups, topo, model, scratch, budget);
    stats.search_evaluations = found.evaluations;
    Draft d = draft("search(from=" + seed->name + ")",
            "Steepest descent over block swaps (whole digits of the rank numbering, and local GPU positions on asymmetric nodes) from " +
                seed->name + ": " + std::to_string(found.evaluations) + " placements scored, " +
                percent_faster(seed->score.total_us, found.score.total_us) + " faster than its seed.",
            "search", seed->layout);
    d.groups = seed->groups;
    d.slot_of_rank = found.slot_of_rank;
    d.score = found.score;
    drafts.push_back(std::move(d));
  }
  stats.search_s = seconds_since(t1);
  stats.generated = static_cast<int>(drafts.size());

  // Duplicates: equal digests, confirmed by comparing the group labels; the first name stays.
  auto t2 = Clock::now();
  std::vector<std::uint64_t> digests;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_digest;
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    const auto digest = structure_digest(*drafts[i].groups, drafts[i].slot_of_rank);
    digests.push_back(digest);
    bool duplicate = false;
    for (std::size_t j : by_digest[digest]) {
      if (equal_labels(*drafts[j].groups, drafts[j].slot_of_rank, *drafts[i].groups, drafts[i].slot_of_rank)) {
        drafts[j].aliases.push_back(drafts[i].name);
        duplicate = true;
        break;
      }
    }
    if (!duplicate) {
      by_digest[digest].push_back(i);
      kept.push_back(i);
    }
  }
  stats.dedup_s = seconds_since(t2);

  auto t3 = Clock::now();
  std::stable_sort(kept.begin(), kept.end(), [&drafts](std::size_t a, std::size_t b) { return drafts[a].score.total_us < drafts[b].score.total_us; });
  for (std::size_t i : kept) {
    Draft& d = drafts[i];
    Candidate c;
    c.mapping.name = d.name;
    c.mapping.how = d.how;
    c.mapping.layout = d.layout;
    c.mapping.slot_of_rank = std::move(d.slot_of_rank);
    if (options.with_groups) {
      for (Dim dim : kAllDims) c.mapping.groups[dim] = (*d.groups)[dim].nested();
    }
    c.mapping.aliases = std::move(d.aliases);
    c.score = d.score;
    c.digest = digests[i];
    c.kind = d.kind;
    result.ranked.push_back(std::move(c));
  }
  stats.build_s = seconds_since(t3);
  stats.distinct = static_cast<int>(result.ranked.size());
  return result;
}

}  // namespace meshbench::mapping
