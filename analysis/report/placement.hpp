#pragma once
// Where each mapping's groups land on the cluster: per dimension, which slot holds which
// group's member, and the link classes the members' connections cross; and the slot × slot
// link classes themselves. The placement charts (charts.hpp, placement_charts) and the HTML
// report's link matrix draw these; they compute nothing of their own.
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/ranking.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

// Two consecutive members of a group in rank order (the last back to the first when the
// group has more than two), the link between their slots: the connections a ring over the
// group uses.
struct PlacementHop {
  int from_slot = 0, to_slot = 0;
  std::string link;  // topology::LinkClass name
};

struct PlacementGroup {
  std::vector<int> ranks;  // logical ranks, in the order the file stores them
  std::vector<int> slots;  // their slots, same order
  std::vector<PlacementHop> hops;
  // Every link class between any two members (what an all-to-all crosses), closest first.
  std::vector<std::string> crossed;
};

struct DimPlacement {
  std::string dim;
  std::vector<PlacementGroup> groups;  // group index as stored
  std::vector<int> group_of_slot;      // per slot of the cluster; -1 for a slot no rank uses
  std::vector<int> rank_of_slot;       // per slot; -1 likewise
};

struct MappingPlacement {
  std::string mapping;
  int rank = 0;                    // in the ranking; 0 when unranked
  std::vector<DimPlacement> dims;  // kAllDims order; dimensions whose groups have one member left out
};

// The cluster as nodes × slots and the link class of every slot pair.
struct SlotGrid {
  std::vector<std::string> hosts;  // per node
  std::vector<int> first_slot;     // per node
  std::vector<int> slot_count;     // per node
  int slots = 0;
  std::vector<std::vector<std::string>> links;  // slot × slot; empty when slots > kMaxLinkMatrixSlots
  std::vector<std::string> classes;             // link classes that occur between distinct slots, closest first
};

// Beyond these the pictures would be unreadable and the file huge: the report says so instead.
inline constexpr int kMaxLinkMatrixSlots = 128;
inline constexpr int kMaxPlacementSlots = 1024;

struct Placements {
  SlotGrid grid;
  std::vector<MappingPlacement> mappings;  // ranking order, then unranked mappings in file order
};

// nullopt when the file keeps no readable topology, or the cluster has more than
// kMaxPlacementSlots slots. InputError when a mapping places a rank off the topology.
std::optional<Placements> placements_of(const results::ResultsFile& file, const Ranking& ranking);

// The colour of group `index` in every placement picture (HTML and PNG): twelve distinct
// colours, then hues spaced by the golden angle. "#rrggbb".
std::string group_colour(int index);
// The colour of a link class in the slot × slot heat map, closest (dark) to farthest (light).
std::string link_colour(const std::string& link_class);
// How a hop over a link class is stroked in the placement pictures: an SVG stroke-dasharray
// ("" for solid, the closest links; longer gaps the farther the link).
std::string link_dash(const std::string& link_class);

}  // namespace meshbench::analysis
