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

// The drafts so far, with what they share: each order's groups and atoms (built once per order)
// and the scoring's working memory.
class Drafts {
 public:
  Drafts(const topology::ClusterTopology& topo, const CostModel& model) : topo_(topo), model_(model) {}

  const FlatParallelGroups& groups_of(const Layout& l) {
    auto it = groups_by_order_.find(l.order);
    if (it == groups_by_order_.end()) it = groups_by_order_.emplace(l.order, flat_rank_groups(l)).first;
    return it->second;
  }
  const std::vector<Atom>& atoms_of(const Layout& l) {
    auto it = atoms_by_order_.find(l.order);
    if (it == atoms_by_order_.end()) it = atoms_by_order_.emplace(l.order, detail::rank_atoms(l)).first;
    return it->second;
  }
  // Scores `d` (node 0's pricing where its atoms fill nodes) and keeps it.
  void add(Draft d) {
    d.groups = &groups_of(d.layout);
    const bool symmetric = d.atoms != nullptr && detail::node_aligned(*d.atoms, d.placement, topo_);
    d.score = model_.score(d.layout, *d.groups, d.slot_of_rank, scratch_, symmetric);
    all.push_back(std::move(d));
  }
  const Draft& best() const {
    return *std::min_element(all.begin(), all.end(), [](const Draft& a, const Draft& b) { return a.score.total_us < b.score.total_us; });
  }
  CostScratch& scratch() { return scratch_; }

  std::vector<Draft> all;

 private:
  const topology::ClusterTopology& topo_;
  const CostModel& model_;
  CostScratch scratch_;
  std::map<std::string, FlatParallelGroups> groups_by_order_;
  std::map<std::string, std::vector<Atom>> atoms_by_order_;
};

// Every valid order, identity placement.
void add_orders(Drafts& drafts, const Layout& layout) {
  for (const auto& order : valid_orders(layout)) {
    Draft d = draft("order:" + order, "Megatron order " + order + ", logical rank i on slot i.", "order", layout);
    d.layout.order = order;
    d.slot_of_rank.resize(static_cast<std::size_t>(layout.world));
    std::iota(d.slot_of_rank.begin(), d.slot_of_rank.end(), 0);
    d.atoms = &drafts.atoms_of(d.layout);
    d.placement.order.resize(d.atoms->size());
    std::iota(d.placement.order.begin(), d.placement.order.end(), 0);
    drafts.add(std::move(d));
  }
}

// Topology-aware placements of the layout's own numbering.
void add_heuristics(Drafts& drafts, const Layout& layout, const topology::ClusterTopology& topo, const std::vector<int>& local_order) {
  const auto& atoms = drafts.atoms_of(layout);
  for (const auto& h : kHeuristics) {
    if (h.needs_cp && layout.cp == 1) continue;
    Draft d = draft(h.name, h.how, "heuristic", layout);
    d.atoms = &atoms;
    d.placement = {prioritised(atoms, h.priority), local_order};
    d.slot_of_rank = detail::place(atoms, d.placement, topo);
    drafts.add(std::move(d));
  }
}

// Where GPUs share a NIC: the heaviest dimension that crosses nodes gets the pairs under one
// PCIe switch, so one of its groups, not two, drives each shared NIC.
void add_pairs_under_switch(Drafts& drafts, const Layout& layout, const topology::ClusterTopology& topo,
                            const std::vector<int>& local_order) {
  if (!topo.homogeneous() || topo.node_count() <= 1 || !shares_nics(topo.node(0))) return;
  const auto& atoms = drafts.atoms_of(layout);
  const Draft& best = drafts.best();
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
  if (heaviest <= 0 || it == order.end()) return;
  std::rotate(order.begin(), it, it + 1);
  const std::string dim(to_string(heavy));
  Draft d = draft(dim + "-pairs-under-switch",
                  "Puts pairs of " + dim + " ranks on GPUs that share a PCIe switch and NIC, so that one " + dim +
                      " group, not two, drives each shared NIC; otherwise like tp-ep-in-node.",
                  "heuristic", layout);
  d.atoms = &atoms;
  d.placement = {std::move(order), local_order};
  d.slot_of_rank = detail::place(atoms, d.placement, topo);
  drafts.add(std::move(d));
}

void add_random(Drafts& drafts, const Layout& layout, std::uint64_t seed) {
  Draft d =
      draft("random(seed=" + std::to_string(seed) + ")",
            "A uniformly random placement (splitmix64 Fisher-Yates, seed " + std::to_string(seed) + "): the baseline.", "random", layout);
  d.slot_of_rank = detail::random_placement(layout.world, seed);
  drafts.add(std::move(d));
}

// The search, from the best structured candidate; returns how many placements it scored.
int add_search(Drafts& drafts, const Layout& layout, const topology::ClusterTopology& topo, const CostModel& model,
               const CandidateOptions& options, const std::vector<int>& local_order) {
  const Draft* seed = nullptr;
  for (const auto& d : drafts.all) {
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
  const auto found =
      detail::local_search(*seed->atoms, start, seed->score, seed->layout, *seed->groups, topo, model, drafts.scratch(), budget);
  Draft d =
      draft("search(from=" + seed->name + ")",
            "Steepest descent over block swaps (whole digits of the rank numbering, and local GPU positions on asymmetric nodes) from " +
                seed->name + ": " + std::to_string(found.evaluations) + " placements scored, " +
                percent_faster(seed->score.total_us, found.score.total_us) + " faster than its seed.",
            "search", seed->layout);
  d.groups = seed->groups;
  d.slot_of_rank = found.slot_of_rank;
  d.score = found.score;
  drafts.all.push_back(std::move(d));
  return found.evaluations;
}

// Duplicates: equal digests, confirmed by comparing the group labels; the first name stays, the
// others become its aliases. Returns the kept drafts' indices; `digests` gets every draft's.
std::vector<std::size_t> drop_duplicates(std::vector<Draft>& drafts, std::vector<std::uint64_t>& digests) {
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
  return kept;
}

// The kept drafts as candidates, fastest first (ties in generation order).
std::vector<Candidate> ranked(std::vector<Draft>& drafts, std::vector<std::size_t> kept, const std::vector<std::uint64_t>& digests,
                              bool with_groups) {
  std::stable_sort(kept.begin(), kept.end(),
                   [&drafts](std::size_t a, std::size_t b) { return drafts[a].score.total_us < drafts[b].score.total_us; });
  std::vector<Candidate> out;
  for (std::size_t i : kept) {
    Draft& d = drafts[i];
    Candidate c;
    c.mapping.name = d.name;
    c.mapping.how = d.how;
    c.mapping.layout = d.layout;
    c.mapping.slot_of_rank = std::move(d.slot_of_rank);
    if (with_groups) {
      for (Dim dim : kAllDims) c.mapping.groups[dim] = (*d.groups)[dim].nested();
    }
    c.mapping.aliases = std::move(d.aliases);
    c.score = d.score;
    c.digest = digests[i];
    c.kind = d.kind;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace

RankedCandidates generate_candidates(const Layout& layout, const topology::ClusterTopology& topo, const CostModel& model,
                                     const CandidateOptions& options) {
  if (options.random_placements < 0) throw InputError("--random must be 0 or more (got " + std::to_string(options.random_placements) + ")");
  if (layout.world != topo.slot_count()) {
    throw InputError("the layout's world size " + std::to_string(layout.world) + " differs from the topology's " +
                     std::to_string(topo.slot_count()) + " slots");
  }
  validate(layout);
  RankedCandidates result;
  auto& stats = result.stats;

  auto t0 = Clock::now();
  Drafts drafts(topo, model);
  const std::vector<int> local_order = topo.homogeneous() ? detail::topology_local_order(topo.node(0)) : std::vector<int>{};
  add_orders(drafts, layout);
  add_heuristics(drafts, layout, topo, local_order);
  add_pairs_under_switch(drafts, layout, topo, local_order);
  for (int k = 0; k < options.random_placements; ++k) add_random(drafts, layout, options.random_seed + static_cast<std::uint64_t>(k));
  stats.generate_s = seconds_since(t0);

  auto t1 = Clock::now();
  if (options.search) stats.search_evaluations = add_search(drafts, layout, topo, model, options, local_order);
  stats.search_s = seconds_since(t1);
  stats.generated = static_cast<int>(drafts.all.size());

  auto t2 = Clock::now();
  std::vector<std::uint64_t> digests;
  const auto kept = drop_duplicates(drafts.all, digests);
  stats.dedup_s = seconds_since(t2);

  auto t3 = Clock::now();
  result.ranked = ranked(drafts.all, kept, digests, options.with_groups);
  stats.build_s = seconds_since(t3);
  stats.distinct = static_cast<int>(result.ranked.size());
  return result;
}

}  // namespace meshbench::mapping
