#include "mapping/mapping.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace meshbench::mapping {

namespace {

// Group sets in slots, each group sorted and the groups sorted: equal exactly when two
// mappings' groups are the same sets.
RankGroups canonical(const Mapping& m, Dim dim) {
  RankGroups groups = m.slot_groups(dim);
  for (auto& g : groups) std::sort(g.begin(), g.end());
  std::sort(groups.begin(), groups.end());
  return groups;
}

}  // namespace

std::vector<int> Mapping::rank_of_slot() const {
  std::vector<int> r(slot_of_rank.size());
  for (std::size_t rank = 0; rank < slot_of_rank.size(); ++rank) r[static_cast<std::size_t>(slot_of_rank[rank])] = static_cast<int>(rank);
  return r;
}

RankGroups Mapping::slot_groups(Dim dim) const {
  RankGroups out = groups[dim];
  for (auto& g : out) {
    for (int& r : g) r = slot_of_rank[static_cast<std::size_t>(r)];
  }
  return out;
}

Mapping make_mapping(std::string name, std::string how, const Layout& layout, std::vector<int> slot_of_rank) {
  if (static_cast<int>(slot_of_rank.size()) != layout.world) {
    throw InputError("mapping '" + name + "' places " + std::to_string(slot_of_rank.size()) + " ranks but the world size is " +
                     std::to_string(layout.world));
  }
  std::vector<bool> seen(slot_of_rank.size(), false);
  for (int s : slot_of_rank) {
    if (s < 0 || s >= layout.world || seen[static_cast<std::size_t>(s)]) {
      throw InputError("mapping '" + name + "' is not a permutation of the slots 0.." + std::to_string(layout.world - 1));
    }
    seen[static_cast<std::size_t>(s)] = true;
  }
  Mapping m;
  m.name = std::move(name);
  m.how = std::move(how);
  m.layout = layout;
  m.slot_of_rank = std::move(slot_of_rank);
  m.groups = rank_groups(layout);
  return m;
}

bool same_structure(const Mapping& a, const Mapping& b) {
  if (a.slot_of_rank.size() != b.slot_of_rank.size()) return false;
  for (Dim d : kAllDims) {
    if (canonical(a, d) != canonical(b, d)) return false;
  }
  return true;
}

std::uint64_t structure_digest(const Mapping& m) {
  // FNV-1a over the canonical group sets; a group boundary and a dimension boundary are
  // hashed as distinct markers so that different groupings cannot collide by concatenation.
  std::uint64_t h = 14695981039346656037ULL;
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xffU;
      h *= 1099511628211ULL;
    }
  };
  for (Dim d : kAllDims) {
    for (const auto& g : canonical(m, d)) {
      for (int s : g) mix(static_cast<std::uint64_t>(s));
      mix(~0ULL);
    }
    mix(~1ULL);
  }
  return h;
}

}  // namespace meshbench::mapping
