// Plan files of several layouts (docs/mapping.md, "Plan files of several layouts").
#include "mapping/plan_set.hpp"

#include <set>

#include "common/error.hpp"
#include "common/version.hpp"
#include "json_file.hpp"

namespace meshbench::mapping {

namespace {

using ordered = nlohmann::ordered_json;

// One world and one cluster for every layout: they are measured in one launch.
void check_same_cluster(const PlanSet& set, const std::string& where) {
  const auto& first = set.layouts.front();
  std::set<std::string> names;
  for (const auto& e : set.layouts) {
    if (e.name.empty() || e.name.find('/') != std::string::npos) {
      throw InputError(where + ": layout name '" + e.name + "' must be non-empty and without '/'; name it like \"ep4\"");
    }
    if (!names.insert(e.name).second) {
      throw InputError(where + " holds layout '" + e.name + "' twice; keep one plan per layout");
    }
    if (e.plan.layout.world != first.plan.layout.world || e.plan.topology.slots_per_node != first.plan.topology.slots_per_node) {
      throw InputError(where + ": layout '" + e.name + "' is planned for " + std::to_string(e.plan.layout.world) + " ranks and layout '" +
                       first.name + "' for " + std::to_string(first.plan.layout.world) +
                       (e.plan.layout.world == first.plan.layout.world ? " on other nodes" : "") +
                       "; one plan file's layouts share one cluster: write them to separate plan files");
    }
  }
}

}  // namespace

std::string layout_name(const Layout& l) {
  std::string name;
  auto add = [&](const char* dim, int size) {
    if (size > 1) name += (name.empty() ? "" : "-") + std::string(dim) + std::to_string(size);
  };
  add("tp", l.tp);
  add("cp", l.cp);
  add("pp", l.pp);
  add("ep", l.ep);
  if (l.expert_tp() != l.tp) name += (name.empty() ? "" : "-") + std::string("etp") + std::to_string(l.expert_tp());
  return name.empty() ? "dp" + std::to_string(l.world) : name;
}

PlanSet make_plan_set(std::vector<Plan> plans, const std::vector<std::optional<nlohmann::json>>& estimates) {
  if (plans.empty()) throw InputError("a plan file needs at least one layout's plan");
  PlanSet set;
  set.created_by = std::string("meshbench ") + kVersion;
  for (std::size_t i = 0; i < plans.size(); ++i) {
    PlanSetEntry e{layout_name(plans[i].layout), std::move(plans[i]), std::nullopt};
    if (i < estimates.size() && estimates[i] && !estimates[i]->is_null()) e.estimate = estimates[i];
    set.layouts.push_back(std::move(e));
  }
  check_same_cluster(set, "the plan set");
  return set;
}

ordered plan_set_to_json(const PlanSet& set) {
  ordered layouts = ordered::array();
  for (const auto& e : set.layouts) {
    layouts.push_back({{"name", e.name},
                       {"estimate", e.estimate ? ordered::parse(e.estimate->dump()) : ordered(nullptr)},
                       {"plan", plan_to_json(e.plan, true)}});
  }
  return {{"format", "meshbench-plan"}, {"version", kPlanSetFormatVersion}, {"created_by", set.created_by}, {"layouts", layouts}};
}

namespace {

PlanSet read_plan_set(const nlohmann::json& j, const std::string& where) {
  PlanSet set;
  const auto v = j.is_object() ? j.find("version") : j.end();
  const bool several = v != j.end() && v->is_number_integer() && *v == kPlanSetFormatVersion;
  if (!several) {  // a plan of one layout, or not a plan (plan_from_json says which)
    Plan plan = plan_from_json(j, where);
    set.created_by = plan.created_by;
    set.layouts.push_back({layout_name(plan.layout), std::move(plan), std::nullopt});
    return set;
  }
  const auto fail = [&](const std::string& what) {
    throw InputError("plan " + where + ": " + what + "; make it again with 'meshbench explore --out'");
  };
  if (j.value("format", "") != "meshbench-plan") fail("is not a meshbench plan (no \"format\": \"meshbench-plan\")");
  set.created_by = j.value("created_by", "");
  const auto layouts = j.find("layouts");
  if (layouts == j.end() || !layouts->is_array() || layouts->empty()) fail("lists no layouts");
  for (const auto& entry : *layouts) {
    if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string() || !entry.contains("plan")) {
      fail("each of \"layouts\" needs a \"name\" and a \"plan\"");
    }
    const std::string name = entry["name"].get<std::string>();
    PlanSetEntry e{name, plan_from_json(entry["plan"], where + " (layout '" + name + "')"), std::nullopt};
    if (const auto est = entry.find("estimate"); est != entry.end() && !est->is_null()) e.estimate = *est;
    set.layouts.push_back(std::move(e));
  }
  check_same_cluster(set, "plan " + where);
  return set;
}

}  // namespace

PlanSet plan_set_from_json(const nlohmann::json& j, const std::string& where) {
  try {
    return read_plan_set(j, where);
  } catch (const nlohmann::json::exception& e) {  // a key of another type than the file's
    throw InputError("plan " + where + ": " + e.what() + "; make it again with 'meshbench explore --out'");
  }
}

void write_plan_set(const PlanSet& set, const std::string& path, bool force) {
  if (set.layouts.size() == 1 && !set.layouts.front().estimate) {
    write_plan(set.layouts.front().plan, path, force);
    return;
  }
  std::vector<const std::vector<int>*> placements;
  for (const auto& e : set.layouts) {
    for (const auto& m : e.plan.mappings) placements.push_back(&m.mapping.slot_of_rank);
  }
  write_output_file(path, detail::plan_file_text(plan_set_to_json(set), placements), force);
}

PlanSet load_plan_set(const std::string& path) { return plan_set_from_json(detail::read_json_file(path, "plan"), "'" + path + "'"); }

void prefix_mapping_names(PlanSet& set) {
  if (set.layouts.size() < 2) return;
  for (auto& e : set.layouts) {
    for (auto& pm : e.plan.mappings) {
      pm.mapping.name = e.name + "/" + pm.mapping.name;
      for (auto& a : pm.mapping.aliases) a = e.name + "/" + a;
    }
  }
}

}  // namespace meshbench::mapping
