#include "mapping/mapping.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/fnv.hpp"

namespace meshbench::mapping {

namespace {

FlatGroups flatten(const RankGroups& groups) {
  FlatGroups f;
  f.size = groups.empty() ? 1 : static_cast<int>(groups.front().size());
  for (const auto& g : groups) f.ranks.insert(f.ranks.end(), g.begin(), g.end());
  return f;
}

using meshbench::Fnv;

}  // namespace

RankGroups Mapping::slot_groups(Dim dim) const {
  RankGroups out = groups[dim];
  for (auto& g : out) {
    for (int& r : g) r = slot_of_rank[static_cast<std::size_t>(r)];
  }
  return out;
}

bool Mapping::identity_placement() const {
  for (std::size_t r = 0; r < slot_of_rank.size(); ++r) {
    if (slot_of_rank[r] != static_cast<int>(r)) return false;
  }
  return true;
}

void check_permutation(const std::string& name, int world, std::span<const int> slot_of_rank) {
  if (static_cast<int>(slot_of_rank.size()) != world) {
    throw InputError("mapping '" + name + "' places " + std::to_string(slot_of_rank.size()) + " ranks but the world size is " +
                     std::to_string(world));
  }
  std::vector<bool> seen(slot_of_rank.size(), false);
  for (int s : slot_of_rank) {
    if (s < 0 || s >= world || seen[static_cast<std::size_t>(s)]) {
      throw InputError("mapping '" + name + "' is not a permutation of the slots 0.." + std::to_string(world - 1));
    }
    seen[static_cast<std::size_t>(s)] = true;
  }
}

Mapping make_mapping(std::string name, std::string how, const Layout& layout, std::vector<int> slot_of_rank) {
  check_permutation(name, layout.world, slot_of_rank);
  Mapping m;
  m.name = std::move(name);
  m.how = std::move(how);
  m.layout = layout;
  m.slot_of_rank = std::move(slot_of_rank);
  m.groups = rank_groups(layout);
  return m;
}

std::vector<int> group_labels(const FlatGroups& groups, std::span<const int> slot_of_rank) {
  std::vector<int> label(slot_of_rank.size());
  for (int g = 0; g < groups.count(); ++g) {
    int lowest = static_cast<int>(slot_of_rank.size());
    for (int r : groups.group(g)) lowest = std::min(lowest, slot_of_rank[static_cast<std::size_t>(r)]);
    for (int r : groups.group(g)) label[static_cast<std::size_t>(slot_of_rank[static_cast<std::size_t>(r)])] = lowest;
  }
  return label;
}

std::uint64_t structure_digest(const FlatParallelGroups& groups, std::span<const int> slot_of_rank) {
  Fnv h;
  for (Dim d : kAllDims) {
    for (int v : group_labels(groups[d], slot_of_rank)) h.mix(static_cast<std::uint32_t>(v));
    h.mix(~0U);  // a dimension boundary, so that label arrays cannot run into each other
  }
  return h.value();
}

bool same_structure(const Mapping& a, const Mapping& b) {
  if (a.slot_of_rank.size() != b.slot_of_rank.size()) return false;
  for (Dim d : kAllDims) {
    if (group_labels(flatten(a.groups[d]), a.slot_of_rank) != group_labels(flatten(b.groups[d]), b.slot_of_rank)) return false;
  }
  return true;
}

std::uint64_t structure_digest(const Mapping& m) {
  FlatParallelGroups flat;
  for (Dim d : kAllDims) flat.by_dim[static_cast<std::size_t>(d)] = flatten(m.groups[d]);
  return structure_digest(flat, m.slot_of_rank);
}

}  // namespace meshbench::mapping
