#pragma once
// A plan file of several layouts (docs/mapping.md, "Plan files of several layouts"): each
// layout's plan (its mappings, best placement first, and a baseline such as Megatron's order)
// with the explorer's estimate for it, so that one `run --plan` measures them all.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapping/plan.hpp"

namespace meshbench::mapping {

// The format version of a plan file of several layouts; a file of one layout stays
// kPlanFormatVersion (1), and reads as a set of one.
inline constexpr int kPlanSetFormatVersion = 2;

struct PlanSetEntry {
  std::string name;  // unique in the set, no '/': "ep4", "tp2-ep4" (layout_name)
  Plan plan;
  // Whatever the explorer estimated for this layout (memory, compute, bubble, step time): kept
  // as given, through run into the results file, for report to print beside the measurement.
  std::optional<nlohmann::json> estimate;
};

struct PlanSet {
  std::string created_by;
  std::vector<PlanSetEntry> layouts;  // in the explorer's order (best estimate first)
};

// "tp2-ep4": the layout's sizes above 1 (etp when it differs from tp); "dp<W>" when there are none.
std::string layout_name(const Layout& layout);

// The set of `plans`, named by layout_name, with `estimates[i]` (when given and not null) kept
// for plans[i]. InputError when the plans are for different worlds or topologies, or two have
// the same layout.
PlanSet make_plan_set(std::vector<Plan> plans, const std::vector<std::optional<nlohmann::json>>& estimates = {});

nlohmann::ordered_json plan_set_to_json(const PlanSet& set);
// Reads a plan file of either version: one of version 1 is a set of one layout.
PlanSet plan_set_from_json(const nlohmann::json& json, const std::string& where);
// Writes atomically; a set of one layout is written as a plain plan (version 1) unless it has an
// estimate. Refuses an existing file unless `force`.
void write_plan_set(const PlanSet& set, const std::string& path, bool force);
PlanSet load_plan_set(const std::string& path);

// The names a results file gives a set's mappings: "<layout>/<mapping>" (aliases likewise) when
// the set has several layouts, so every name is unique in the file; unchanged for one.
void prefix_mapping_names(PlanSet& set);

}  // namespace meshbench::mapping
