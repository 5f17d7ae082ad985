#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "mapping/candidates.hpp"
#include "mapping/cost_params.hpp"
#include "mapping/mapping.hpp"
#include "mapping/workload.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping {

// What `plan --out FILE` writes and `run` reads (docs/mapping.md, "The plan file").
inline constexpr int kPlanFormatVersion = 1;

// Where one dimension's groups sit under a mapping, and the model's time for it.
struct DimPrediction {
  double time_us = 0;  // per step with a workload, else summed over the sweep
  bool crosses_nodes = false;
  int nodes_per_group = 1;  // the widest group's node count
  int nic_flows = 0;        // the most concurrent flows through one NIC
  std::string worst_link;   // link class name: the slowest path inside a group
};

struct PlannedMapping {
  Mapping mapping;           // groups filled by load_plan
  std::string kind;          // order | heuristic | search | random
  std::uint64_t digest = 0;  // structure_digest
  int rank = 0;              // 1 = predicted fastest
  std::array<DimPrediction, kAllDims.size()> predicted{};
  double predicted_total_us = 0;
  const DimPrediction& operator[](Dim d) const { return predicted[static_cast<std::size_t>(d)]; }
};

// Enough of the topology to check it against the launched world and to write exports.
struct PlanTopology {
  std::vector<std::string> hostnames;  // per node
  std::vector<int> slots_per_node;
  std::vector<std::string> node_types;      // per node ("" when unknown)
  std::vector<std::vector<int>> gpu_index;  // per node, per local slot: the device index (CUDA_VISIBLE_DEVICES)
  std::vector<std::vector<int>> numa;       // per node, per local slot
  std::string slot_kind = "gpu";            // gpu | cpu
  int slot_count() const;
  int node_of(int slot) const;
  int local_index(int slot) const;
};

struct Plan {
  int version = kPlanFormatVersion;
  std::string created_by;
  Layout layout;
  std::optional<Workload> workload;
  CostParams cost_model;
  std::string time_basis;  // "per_step" (with a workload) or "sweep"
  CandidateStats stats;
  PlanTopology topology;
  std::vector<PlannedMapping> mappings;                       // best first
  const PlannedMapping* find(const std::string& name) const;  // by name or alias
};

PlanTopology plan_topology(const topology::ClusterTopology& topology);
Plan make_plan(const Layout& layout, const CostModel& model, const topology::ClusterTopology& topology, RankedCandidates ranked);

// JSON with every mapping's slot_of_rank (the file), or without (`plan --format json`); keys in
// reading order.
nlohmann::ordered_json plan_to_json(const Plan& plan, bool with_placements = true);
// Parses and checks a plan document: version, layout valid, every slot_of_rank a permutation of
// the topology's slots, digests matching the placements; fills each mapping's groups.
// InputError naming `where` and the problem.
Plan plan_from_json(const nlohmann::json& json, const std::string& where);

// Writes atomically (temporary file beside it, then rename); refuses an existing file unless
// `force`.
void write_plan(const Plan& plan, const std::string& path, bool force);
// What `run` calls: reads and checks a plan file (InputError on anything wrong).
Plan load_plan(const std::string& path);

// InputError unless the plan was made for this many nodes with these slot counts.
void check_plan_matches(const Plan& plan, const topology::ClusterTopology& launched);

// Writes `text` to `path` whole or not at all (common/atomic_file.hpp); refuses an existing
// file unless `force`. InputError on any failure.
void write_output_file(const std::string& path, const std::string& text, bool force);

}  // namespace meshbench::mapping
