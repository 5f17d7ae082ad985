#pragma once
// The documented JSON form of a topology (docs/topology.md), shared by `meshbench topo
// --format json`, the results file and the plan file, and its parse-back.
#include <nlohmann/json.hpp>

#include "topology/cluster.hpp"

namespace meshbench::topology {

inline constexpr int kTopologyJsonVersion = 1;

struct JsonOptions {
  // Every node object lists its slots and NICs (the documented form). Off: nodes carry only
  // hostname and layout, and the slots and NICs stay in "layouts" (compact, for plan files).
  bool node_details = true;
  // Carry each layout's source XML (large; the results file keeps it elsewhere).
  bool raw_xml = false;
};

// Keys keep the documented order (ordered_json converts to nlohmann::json on assignment).
nlohmann::ordered_json to_json(const ClusterTopology& cluster, const JsonOptions& options = {});
// One node description (a "layouts" entry with its link matrices).
nlohmann::ordered_json to_json(const NodeTopology& node, bool raw_xml = false);

// InputError naming what is missing or malformed.
ClusterTopology cluster_from_json(const nlohmann::json& json);
NodeTopology node_from_json(const nlohmann::json& json);

// Indented JSON whose arrays of numbers or strings stay on one line, so a slot x slot
// matrix reads as a matrix.
std::string dump_readable(const nlohmann::ordered_json& value, int indent = 2);

}  // namespace meshbench::topology
