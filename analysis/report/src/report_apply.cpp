#include "analysis/report/report_apply.hpp"

#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/report/curves.hpp"
#include "analysis/report/ranking.hpp"
#include "common/error.hpp"
#include "mapping/exports.hpp"
#include "mapping/plan_set.hpp"
#include "mapping/rank_groups.hpp"
#include "topology/json.hpp"

namespace meshbench::analysis {

namespace {

using Groups = std::vector<std::vector<int>>;

// A mapping's stored groups as sets, in logical ranks or mapped through slot_of_rank to slots.
std::map<std::string, Groups> stored_groups(const results::MappingRecord& m, bool as_slots) {
  std::map<std::string, Groups> out;
  for (const auto& [dim, groups] : m.groups) {
    Groups g = groups;
    if (as_slots) {
      for (auto& group : g) {
        for (int& r : group) {
          if (r >= 0 && static_cast<std::size_t>(r) < m.slot_of_rank.size()) r = m.slot_of_rank[static_cast<std::size_t>(r)];
        }
      }
    }
    out[dim] = canonical(std::move(g));
  }
  return out;
}

bool groups_match(const mapping::ParallelGroups& generated, const std::map<std::string, Groups>& stored) {
  for (const auto d : mapping::kAllDims) {
    const auto it = stored.find(std::string(mapping::to_string(d)));
    if (it != stored.end() && canonical(generated[d]) != it->second) return false;
  }
  return true;
}

// The first of `preferred` then Megatron's valid orders whose rank groups equal `stored`.
std::string order_matching(mapping::Layout layout, const std::map<std::string, Groups>& stored, const std::vector<std::string>& preferred) {
  std::vector<std::string> orders = preferred;
  try {
    for (auto& o : mapping::valid_orders(layout)) orders.push_back(std::move(o));
  } catch (const InputError&) {
  }
  for (const auto& order : orders) {
    if (order.empty()) continue;
    layout.order = order;
    try {
      if (groups_match(mapping::rank_groups(layout), stored)) return order;
    } catch (const InputError&) {
    }
  }
  return "";
}

// The plan's view of the nodes: from the stored topology, else from /topology/nodes alone.
mapping::PlanTopology plan_topology_of(const results::ResultsFile& file) {
  try {
    return mapping::plan_topology(topology::cluster_from_json(nlohmann::json::parse(file.topology_json())));
  } catch (const std::exception&) {
    mapping::PlanTopology t;
    t.slot_kind = "cpu";
    for (const auto& n : file.nodes()) {
      t.hostnames.push_back(n.hostname);
      t.slots_per_node.push_back(n.slot_count);
      t.node_types.emplace_back();
      std::vector<int> index;
      for (int s = 0; s < n.slot_count; ++s) index.push_back(s);
      t.gpu_index.push_back(index);
      t.numa.emplace_back(static_cast<std::size_t>(n.slot_count), -1);
    }
    return t;
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

const mapping::PlannedMapping& planned(const FilePlan& p, const std::string& name, const std::string& path) {
  const auto* pm = p.plan.find(name);
  if (pm == nullptr) throw InputError("mapping '" + name + "' is not in " + path + "; name one of its mappings");
  return *pm;
}

}  // namespace

const mapping::Plan& FilePlan::of_mapping(const std::string& mapping) const {
  for (const auto& p : layouts) {
    if (p.find(mapping) != nullptr) return p;
  }
  return plan;
}

FilePlan plan_of(const results::ResultsFile& file) {
  if (!file.plan_json().empty()) {
    const auto j = nlohmann::json::parse(file.plan_json(), nullptr, false);
    if (j.is_discarded()) throw InputError("the plan kept in " + file.path() + " is not valid JSON; the file is damaged");
    auto set = mapping::plan_set_from_json(j, "the plan kept in " + file.path());
    FilePlan p{set.layouts.front().plan, "the plan kept in the results file", {}};
    for (std::size_t i = 1; i < set.layouts.size(); ++i) {
      for (const auto& pm : set.layouts[i].plan.mappings) p.plan.mappings.push_back(pm);
    }
    if (set.layouts.size() > 1) {
      for (auto& e : set.layouts) p.layouts.push_back(std::move(e.plan));
    }
    return p;
  }
  FilePlan p;
  p.source = "rebuilt from the results file";
  p.plan.layout = layout_of(file);
  p.plan.topology = plan_topology_of(file);
  int rank = 0;
  for (const auto& m : file.mappings()) {
    mapping::Layout layout = layout_of(file, m.name);
    layout.order = order_matching(layout, stored_groups(m, false), {layout.order});
    if (layout.order.empty()) continue;  // groups no Megatron order makes: nothing to export
    mapping::PlannedMapping pm;
    pm.mapping = mapping::make_mapping(m.name, m.how, layout, m.slot_of_rank);
    pm.digest = mapping::structure_digest(pm.mapping);
    pm.rank = ++rank;
    p.plan.mappings.push_back(std::move(pm));
  }
  return p;
}

ApplyHint apply_hint(const results::ResultsFile& file, const FilePlan& file_plan, const std::string& name) {
  const auto* record = file.find_mapping(name);
  if (record == nullptr) throw InputError("mapping '" + name + "' is not in " + file.path() + "; name one of its mappings");
  const auto& pm = planned(file_plan, name, file.path());
  const FilePlan p{file_plan.of_mapping(name), file_plan.source, {}};
  int slots = 0;
  for (const int s : p.plan.topology.slots_per_node) slots += s;
  if (slots < p.plan.layout.world)
    throw InputError(file.path() + " keeps no topology to place its " + std::to_string(p.plan.layout.world) +
                     " ranks on (a file imported from another tool's logs); there is no placement to apply or export");
  ApplyHint h;
  h.mapping = name;
  h.plan_source = p.source;
  // The mapping's own order first, so the advice names the order the plan used when it fits.
  h.pure_order = order_matching(p.plan.layout, stored_groups(*record, true), {pm.mapping.layout.order, mapping::kDefaultOrder});
  h.megatron = mapping::megatron_arguments(p.plan, pm);
  h.rankfile = lines_of(mapping::openmpi_rankfile(p.plan.topology, pm.mapping));
  h.slurm_hostfile = lines_of(mapping::slurm_hostfile(p.plan.topology, pm.mapping));
  if (p.plan.topology.slot_kind == "gpu") {
    const auto devices = mapping::cuda_visible_devices(p.plan.topology, pm.mapping);
    for (std::size_t n = 0; n < devices.size() && n < p.plan.topology.hostnames.size(); ++n) {
      h.cuda_visible_devices.emplace_back(p.plan.topology.hostnames[n], devices[n]);
    }
  }
  return h;
}

std::vector<std::string> export_apply_files(const FilePlan& p, const std::string& name, const std::string& dir, bool force) {
  return mapping::export_mapping(p.of_mapping(name), planned(p, name, "the results file"), dir, force);
}

}  // namespace meshbench::analysis
