#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "mapping/cost_model.hpp"
#include "mapping/mapping.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping {

// One ranked candidate: the mapping, its predicted cost, how it was made.
struct Candidate {
  Mapping mapping;
  Score score;
  std::uint64_t digest = 0;  // structure_digest(mapping)
  std::string kind;          // "order", "heuristic", "search" or "random"
};

struct CandidateOptions {
  std::uint64_t random_seed = 1;
  // Random placements (seeds random_seed, random_seed + 1, …): baselines, and on a small test
  // cluster the extra distinct mappings a check of the cost model's ranking needs.
  int random_placements = 1;
  bool search = true;
  // Most placements the search scores; 0 = scale with the world size (fewer for larger worlds,
  // so that 65,536 slots stay within about a second).
  int search_max_evaluations = 0;
  // Fill each Mapping's nested group lists. `plan` needs only slot_of_rank and the scores, and at
  // 65,536 slots the lists cost more than scoring; load_plan builds them for `run`.
  bool with_groups = true;
};

struct CandidateStats {
  int generated = 0;  // before dropping duplicates
  int distinct = 0;
  int search_evaluations = 0;
  double generate_s = 0;  // orders, heuristics, random: built and scored
  double search_s = 0;
  double dedup_s = 0;  // digests and exact comparison
  double build_s = 0;  // Mapping objects for the distinct candidates (group lists if asked)
};

struct RankedCandidates {
  std::vector<Candidate> ranked;  // fastest first; ties keep generation order
  CandidateStats stats;
};

// Every candidate for `layout` (its order is the numbering the heuristics place) on the model's
// topology: each valid order with identity placement, the topology-aware heuristics, a search
// seeded from the best of those, `random_placements` random baselines; duplicates dropped (their names kept as
// aliases), ranked by the model. InputError when the layout's world differs from the topology's.
RankedCandidates generate_candidates(const Layout& layout, const topology::ClusterTopology& topology, const CostModel& model,
                                     const CandidateOptions& options = {});

// The orders RankGenerator accepts for this layout: permutations of its dimensions larger than
// 1, the layout's own order first (kept as written), the rest as permutations of the non-trivial
// names in lexicographic order.
std::vector<std::string> valid_orders(const Layout& layout);

}  // namespace meshbench::mapping
