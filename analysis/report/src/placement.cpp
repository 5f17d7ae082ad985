#include "analysis/report/placement.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/report/file_model.hpp"
#include "common/error.hpp"
#include "mapping/layout.hpp"
#include "topology/cluster.hpp"
#include "topology/link_class.hpp"

namespace meshbench::analysis {

namespace {

using topology::LinkClass;

std::string link_name(LinkClass c) { return std::string(topology::to_string(c)); }

SlotGrid grid_of(const topology::ClusterTopology& topo) {
  SlotGrid g;
  g.slots = topo.slot_count();
  for (int n = 0; n < topo.node_count(); ++n) {
    g.hosts.push_back(topo.hostname(n));
    g.first_slot.push_back(topo.first_slot_of(n));
    g.slot_count.push_back(static_cast<int>(topo.node(n).slots.size()));
  }
  std::array<bool, topology::kLinkClassCount> seen{};
  const bool matrix = g.slots <= kMaxLinkMatrixSlots;
  if (matrix) g.links.assign(static_cast<std::size_t>(g.slots), std::vector<std::string>(static_cast<std::size_t>(g.slots)));
  // Classes inside each distinct node layout, and NET between nodes: enough for the legend
  // without visiting every pair of a large cluster.
  for (int i = 0; i < topo.layout_count(); ++i) {
    const auto& node = topo.layout(i);
    for (std::size_t a = 0; a < node.slots.size(); ++a) {
      for (std::size_t b = 0; b < node.slots.size(); ++b) {
        if (a != b) seen[static_cast<std::size_t>(node.link(static_cast<int>(a), static_cast<int>(b)))] = true;
      }
    }
  }
  if (topo.node_count() > 1) seen[static_cast<std::size_t>(LinkClass::NET)] = true;
  if (matrix) {
    for (int a = 0; a < g.slots; ++a) {
      for (int b = 0; b < g.slots; ++b) g.links[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = link_name(topo.link(a, b));
    }
  }
  for (int c = 0; c < topology::kLinkClassCount; ++c) {
    if (seen[static_cast<std::size_t>(c)] && c != static_cast<int>(LinkClass::LOC))
      g.classes.push_back(link_name(static_cast<LinkClass>(c)));
  }
  return g;
}

PlacementGroup group_of(const topology::ClusterTopology& topo, const std::vector<int>& ranks, const std::vector<int>& slot_of_rank) {
  PlacementGroup g;
  g.ranks = ranks;
  for (const int r : ranks) g.slots.push_back(slot_of_rank[static_cast<std::size_t>(r)]);
  const std::size_t n = g.slots.size();
  const std::size_t hops = n == 2 ? 1 : (n > 2 ? n : 0);
  for (std::size_t k = 0; k < hops; ++k) {
    const int a = g.slots[k], b = g.slots[(k + 1) % n];
    g.hops.push_back({a, b, link_name(topo.link(a, b))});
  }
  // Pairs inside each node (few), and NET once the members span nodes: every pair's class
  // without the square of a large group.
  std::map<int, std::vector<int>> by_node;
  for (const int s : g.slots) by_node[topo.node_of(s)].push_back(s);
  std::set<LinkClass> crossed;
  for (const auto& [node, slots] : by_node) {
    for (std::size_t a = 0; a < slots.size(); ++a) {
      for (std::size_t b = a + 1; b < slots.size(); ++b) crossed.insert(topo.link(slots[a], slots[b]));
    }
  }
  if (by_node.size() > 1) crossed.insert(LinkClass::NET);
  for (const auto c : crossed) g.crossed.push_back(link_name(c));
  return g;
}

MappingPlacement placement_of(const topology::ClusterTopology& topo, const results::MappingRecord& m, int rank, const std::string& path) {
  MappingPlacement mp;
  mp.mapping = m.name;
  mp.rank = rank;
  const int world = static_cast<int>(m.slot_of_rank.size());
  for (const int s : m.slot_of_rank) {
    if (s < 0 || s >= topo.slot_count()) {
      throw InputError("mapping '" + m.name + "' in " + path + " places a rank on slot " + std::to_string(s) + " of a topology of " +
                       std::to_string(topo.slot_count()) + " slots; the file is damaged");
    }
  }
  for (const auto dim : mapping::kAllDims) {
    const std::string name(mapping::to_string(dim));
    const auto it = std::find_if(m.groups.begin(), m.groups.end(), [&](const auto& d) { return d.first == name; });
    if (it == m.groups.end() || it->second.empty()) continue;
    const auto& groups = it->second;
    if (std::all_of(groups.begin(), groups.end(), [](const auto& g) { return g.size() <= 1; })) continue;
    DimPlacement d;
    d.dim = name;
    d.group_of_slot.assign(static_cast<std::size_t>(topo.slot_count()), -1);
    d.rank_of_slot.assign(static_cast<std::size_t>(topo.slot_count()), -1);
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      for (const int r : groups[gi]) {
        if (r < 0 || r >= world) {
          throw InputError("mapping '" + m.name + "' in " + path + " has a " + name + " group naming rank " + std::to_string(r) + " of " +
                           std::to_string(world) + "; the file is damaged");
        }
        const auto slot = static_cast<std::size_t>(m.slot_of_rank[static_cast<std::size_t>(r)]);
        d.group_of_slot[slot] = static_cast<int>(gi);
        d.rank_of_slot[slot] = r;
      }
      d.groups.push_back(group_of(topo, groups[gi], m.slot_of_rank));
    }
    mp.dims.push_back(std::move(d));
  }
  return mp;
}

}  // namespace

std::optional<Placements> placements_of(const results::ResultsFile& file, const Ranking& ranking) {
  std::optional<topology::ClusterTopology> topo;
  try {
    topo = topology_of(file);
  } catch (const InputError&) {
    return std::nullopt;  // the rest of the report stands without the pictures
  }
  if (topo->slot_count() > kMaxPlacementSlots || topo->slot_count() == 0) return std::nullopt;
  Placements p;
  p.grid = grid_of(*topo);
  for (const auto& r : ranking.mappings) {
    if (const auto* m = file.find_mapping(r.name)) p.mappings.push_back(placement_of(*topo, *m, r.rank, file.path()));
  }
  for (const auto& m : file.mappings()) {
    const bool ranked =
        std::any_of(ranking.mappings.begin(), ranking.mappings.end(), [&](const RankedMapping& r) { return r.name == m.name; });
    if (!ranked) p.mappings.push_back(placement_of(*topo, m, 0, file.path()));
  }
  return p;
}

std::string group_colour(int index) {
  // Distinct on white and for the common colour-vision deficiencies in their first few; no
  // grey, which marks an unused slot.
  static constexpr std::array<const char*, 12> kFirst = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                                         "#e377c2", "#17becf", "#bcbd22", "#393b79", "#ad494a", "#637939"};
  if (index >= 0 && index < static_cast<int>(kFirst.size())) return kFirst[static_cast<std::size_t>(index)];
  // HSL (hue by the golden angle, saturation 0.6, lightness 0.5) to RGB.
  const double h = std::fmod(index * 137.508, 360.0) / 60.0, s = 0.6, l = 0.5;
  const double c = (1 - std::fabs(2 * l - 1)) * s, x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1)), m = l - c / 2;
  double r = 0, g = 0, b = 0;
  switch (static_cast<int>(h)) {
    case 0: r = c, g = x; break;
    case 1: r = x, g = c; break;
    case 2: g = c, b = x; break;
    case 3: g = x, b = c; break;
    case 4: r = x, b = c; break;
    default: r = c, b = x; break;
  }
  std::array<char, 8> out{};
  std::snprintf(out.data(), out.size(), "#%02x%02x%02x", static_cast<int>(std::lround((r + m) * 255)),
                static_cast<int>(std::lround((g + m) * 255)), static_cast<int>(std::lround((b + m) * 255)));
  return out.data();
}

std::string link_colour(const std::string& link_class) {
  static const std::map<std::string, std::string> kColours = {{"LOC", "#08306b"}, {"NVL", "#08519c"}, {"NVB", "#2171b5"},
                                                              {"PIX", "#4292c6"}, {"PXB", "#6baed6"}, {"PHB", "#9ecae1"},
                                                              {"SYS", "#c6dbef"}, {"NET", "#fdae6b"}};
  const auto it = kColours.find(link_class);
  return it == kColours.end() ? "#dddddd" : it->second;
}

std::string link_dash(const std::string& link_class) {
  static const std::map<std::string, std::string> kDash = {{"NVL", ""},    {"NVB", "10 3"}, {"PIX", "6 3"},     {"PXB", "6 3 2 3"},
                                                           {"PHB", "3 3"}, {"SYS", "2 5"},  {"NET", "12 4 2 4"}};
  const auto it = kDash.find(link_class);
  return it == kDash.end() ? "" : it->second;
}

}  // namespace meshbench::analysis
