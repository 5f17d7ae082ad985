// The plan file: JSON, one document (docs/mapping.md, "The plan file").
#include <nlohmann/json.hpp>
#include <optional>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_integer.hpp"
#include "common/version.hpp"
#include "json_file.hpp"
#include "mapping/plan.hpp"

namespace meshbench::mapping {

namespace {

using nlohmann::json;

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

using ordered = nlohmann::ordered_json;

ordered layout_json(const Layout& l) {
  return {{"world", l.world},     {"tp", l.tp},   {"cp", l.cp},     {"pp", l.pp},      {"ep", l.ep},
          {"etp", l.expert_tp()}, {"dp", l.dp()}, {"edp", l.edp()}, {"order", l.order}};
}

// Reads what the JSON holds at `key`, or says in one line where and what is wrong.
class PlanReader {
 public:
  explicit PlanReader(std::string where) : where_(std::move(where)) {}
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("plan " + where_ + ": " + what + "; make it again with 'meshbench plan --out'");
  }
  const json& at(const json& j, const std::string& key, const std::string& context) const {
    if (!j.is_object() || !j.contains(key)) fail(context + " lacks '" + key + "'");
    return j.at(key);
  }
  int integer(const json& j, const std::string& key, const std::string& context) const {
    const json& v = at(j, key, context);
    const auto i = json_integer<int>(v);
    if (!i) fail(context + "." + key + " must be an integer that fits an int");
    return *i;
  }
  double number(const json& j, const std::string& key, const std::string& context) const {
    const json& v = at(j, key, context);
    if (!v.is_number()) fail(context + "." + key + " must be a number");
    return v.get<double>();
  }
  std::string text(const json& j, const std::string& key, const std::string& context) const {
    const json& v = at(j, key, context);
    if (!v.is_string()) fail(context + "." + key + " must be a string");
    return v.get<std::string>();
  }
  std::vector<int> integers(const json& j, const std::string& key, const std::string& context) const {
    const json& v = at(j, key, context);
    if (!v.is_array()) fail(context + "." + key + " must be a list of integers");
    std::vector<int> out;
    out.reserve(v.size());
    for (const auto& x : v) {
      const auto i = json_integer<int>(x);
      if (!i) fail(context + "." + key + " must be a list of integers that fit an int");
      out.push_back(*i);
    }
    return out;
  }

 private:
  std::string where_;
};

}  // namespace

int PlanTopology::slot_count() const {
  int n = 0;
  for (int s : slots_per_node) n += s;
  return n;
}

int PlanTopology::node_of(int slot) const {
  for (std::size_t n = 0; n < slots_per_node.size(); ++n) {
    if (slot < slots_per_node[n]) return static_cast<int>(n);
    slot -= slots_per_node[n];
  }
  return -1;
}

int PlanTopology::local_index(int slot) const {
  for (int per : slots_per_node) {
    if (slot < per) return slot;
    slot -= per;
  }
  return -1;
}

const PlannedMapping* Plan::find(const std::string& name) const {
  for (const auto& m : mappings) {
    if (m.mapping.name == name) return &m;
    for (const auto& a : m.mapping.aliases) {
      if (a == name) return &m;
    }
  }
  return nullptr;
}

PlanTopology plan_topology(const topology::ClusterTopology& topo) {
  PlanTopology t;
  bool any_gpu = false;
  for (int n = 0; n < topo.node_count(); ++n) {
    const auto& node = topo.node(n);
    t.hostnames.push_back(topo.hostname(n));
    t.slots_per_node.push_back(node.slot_count());
    t.node_types.push_back(node.node_type);
    std::vector<int> gpu, numa;
    for (const auto& s : node.slots) {
      gpu.push_back(s.index);
      numa.push_back(s.numa);
      any_gpu |= s.kind == topology::SlotKind::gpu;
    }
    t.gpu_index.push_back(std::move(gpu));
    t.numa.push_back(std::move(numa));
  }
  t.slot_kind = any_gpu ? "gpu" : "cpu";
  return t;
}

Plan make_plan(const Layout& layout, const CostModel& model, const topology::ClusterTopology& topo, RankedCandidates ranked) {
  Plan p;
  p.created_by = std::string("meshbench ") + kVersion;
  p.layout = layout;
  p.workload = model.workload();
  p.cost_model = model.params();
  p.time_basis = model.workload() ? "per_step" : "sweep";
  p.stats = ranked.stats;
  p.topology = plan_topology(topo);
  int rank = 0;
  for (auto& c : ranked.ranked) {
    PlannedMapping m;
    m.rank = ++rank;
    m.kind = c.kind;
    m.digest = c.digest;
    m.predicted_total_us = c.score.total_us;
    for (Dim d : kAllDims) {
      const auto& s = c.score.of(d);
      m.predicted[static_cast<std::size_t>(d)] = {c.score[d], s.crosses_nodes, s.max_nodes_per_group, s.max_nic_flows,
                                                  std::string(topology::to_string(s.worst_link))};
    }
    m.mapping = std::move(c.mapping);
    p.mappings.push_back(std::move(m));
  }
  return p;
}

ordered plan_to_json(const Plan& p, bool with_placements) {
  ordered hosts = ordered::array();
  for (std::size_t n = 0; n < p.topology.hostnames.size(); ++n) {
    hosts.push_back({{"hostname", p.topology.hostnames[n]},
                     {"node_type", p.topology.node_types[n]},
                     {"slots", p.topology.slots_per_node[n]},
                     {"device_index", p.topology.gpu_index[n]},
                     {"numa", p.topology.numa[n]}});
  }
  ordered mappings = ordered::array();
  for (const auto& m : p.mappings) {
    ordered predicted = ordered::object();
    for (Dim d : kAllDims) {
      const auto& x = m[d];
      predicted[std::string(to_string(d))] = {{"time_us", x.time_us},
                                              {"crosses_nodes", x.crosses_nodes},
                                              {"nodes_per_group", x.nodes_per_group},
                                              {"nic_flows", x.nic_flows},
                                              {"worst_link", x.worst_link}};
    }
    ordered j = {{"rank", m.rank},
                 {"name", m.mapping.name},
                 {"how", m.mapping.how},
                 {"kind", m.kind},
                 {"aliases", m.mapping.aliases},
                 {"order", m.mapping.layout.order},
                 {"identity_placement", m.mapping.identity_placement()},
                 {"digest", hex(m.digest)},
                 {"predicted_total_us", m.predicted_total_us},
                 {"predicted", predicted}};
    if (with_placements) j["slot_of_rank"] = m.mapping.slot_of_rank;
    mappings.push_back(std::move(j));
  }
  return {
      {"format", "meshbench-plan"},
      {"version", p.version},
      {"created_by", p.created_by},
      {"layout", layout_json(p.layout)},
      {"workload", p.workload ? ordered(to_json(*p.workload)) : ordered(nullptr)},
      {"time_basis", p.time_basis},
      {"cost_model", ordered(to_json(p.cost_model))},
      {"candidates",
       {{"generated", p.stats.generated}, {"distinct", p.stats.distinct}, {"search_evaluations", p.stats.search_evaluations}}},
      {"topology",
       {{"nodes", p.topology.hostnames.size()}, {"slots", p.topology.slot_count()}, {"slot_kind", p.topology.slot_kind}, {"hosts", hosts}}},
      {"mappings", mappings}};
}

namespace {

// The plan's hosts: names, node types, slots and their devices, adding up to the layout's world.
PlanTopology read_plan_topology(const PlanReader& r, const json& t, int world) {
  PlanTopology topo;
  topo.slot_kind = r.text(t, "slot_kind", "topology");
  const json& hosts = r.at(t, "hosts", "topology");
  if (!hosts.is_array() || hosts.empty()) r.fail("topology.hosts must be a non-empty list");
  long long slots = 0;  // summed as they come, so that no count from the file overflows an int
  for (const auto& h : hosts) {
    topo.hostnames.push_back(r.text(h, "hostname", "host"));
    topo.node_types.push_back(r.text(h, "node_type", "host"));
    topo.slots_per_node.push_back(r.integer(h, "slots", "host"));
    slots += topo.slots_per_node.back();
    if (topo.slots_per_node.back() < 1 || slots > world) {
      r.fail("host '" + topo.hostnames.back() + "' has " + std::to_string(topo.slots_per_node.back()) +
             " slots; each host has at least 1, and all together the layout's world of " + std::to_string(world));
    }
    topo.gpu_index.push_back(r.integers(h, "device_index", "host"));
    topo.numa.push_back(r.integers(h, "numa", "host"));
    if (static_cast<int>(topo.gpu_index.back().size()) != topo.slots_per_node.back()) {
      r.fail("host '" + topo.hostnames.back() + "' lists " + std::to_string(topo.gpu_index.back().size()) + " device indices for " +
             std::to_string(topo.slots_per_node.back()) + " slots");
    }
  }
  if (topo.slot_count() != world) {
    r.fail("the topology has " + std::to_string(topo.slot_count()) + " slots but the layout's world is " + std::to_string(world));
  }
  return topo;
}

Plan read_plan(const json& j, const std::string& where) {
  const PlanReader r(where);
  if (!j.is_object() || j.value("format", "") != "meshbench-plan") r.fail("is not a meshbench plan (no \"format\": \"meshbench-plan\")");
  Plan p;
  p.version = r.integer(j, "version", "plan");
  if (p.version != kPlanFormatVersion) {
    throw InputError("plan " + where + " has format version " + std::to_string(p.version) + "; this meshbench reads version " +
                     std::to_string(kPlanFormatVersion) + "; make it again with this meshbench's 'plan --out'");
  }
  p.created_by = j.value("created_by", "");
  const json& l = r.at(j, "layout", "plan");
  p.layout = {.world = r.integer(l, "world", "layout"),
              .tp = r.integer(l, "tp", "layout"),
              .cp = r.integer(l, "cp", "layout"),
              .pp = r.integer(l, "pp", "layout"),
              .ep = r.integer(l, "ep", "layout"),
              .etp = r.integer(l, "etp", "layout"),
              .order = r.text(l, "order", "layout")};
  validate(p.layout);
  const json& w = r.at(j, "workload", "plan");
  if (!w.is_null()) p.workload = workload_from_json(w, where);
  p.time_basis = r.text(j, "time_basis", "plan");
  p.cost_model = CostParams{};
  json cost_model = r.at(j, "cost_model", "plan");
  // Plans (and the results files that keep them) written before the routing skew had one meaning
  // priced all_to_allv at a fixed ratio, 'alltoallv_imbalance'. It cannot be turned into a skew
  // without the group size, and nothing reads a stored plan's all_to_allv price back (the report
  // leaves all_to_allv out of its predictions), so such a plan reads as balanced.
  if (cost_model.is_object()) cost_model.erase("alltoallv_imbalance");
  apply_cost_overrides(p.cost_model, cost_model, where);
  p.topology = read_plan_topology(r, r.at(j, "topology", "plan"), p.layout.world);
  const json& ms = r.at(j, "mappings", "plan");
  if (!ms.is_array() || ms.empty()) r.fail("lists no mappings");
  for (const auto& mj : ms) {
    PlannedMapping m;
    const std::string name = r.text(mj, "name", "mapping");
    const std::string context = "mapping '" + name + "'";
    Layout layout = p.layout;
    layout.order = r.text(mj, "order", context);
    validate(layout);
    m.mapping = make_mapping(name, r.text(mj, "how", context), layout, r.integers(mj, "slot_of_rank", context));
    if (mj.contains("aliases")) m.mapping.aliases = mj.at("aliases").get<std::vector<std::string>>();
    m.kind = r.text(mj, "kind", context);
    m.rank = r.integer(mj, "rank", context);
    m.digest = structure_digest(flat_rank_groups(layout), m.mapping.slot_of_rank);
    if (hex(m.digest) != r.text(mj, "digest", context)) r.fail(context + " does not match its digest (was slot_of_rank edited?)");
    m.predicted_total_us = r.number(mj, "predicted_total_us", context);
    const json& pred = r.at(mj, "predicted", context);
    for (Dim d : kAllDims) {
      const json& x = r.at(pred, std::string(to_string(d)), context + ".predicted");
      m.predicted[static_cast<std::size_t>(d)] = {r.number(x, "time_us", "predicted"), x.value("crosses_nodes", false),
                                                  r.integer(x, "nodes_per_group", "predicted"), r.integer(x, "nic_flows", "predicted"),
                                                  r.text(x, "worst_link", "predicted")};
    }
    p.mappings.push_back(std::move(m));
  }
  if (const auto c = j.find("candidates"); c != j.end() && c->is_object()) {
    p.stats.generated = c->value("generated", 0);
    p.stats.distinct = c->value("distinct", 0);
    p.stats.search_evaluations = c->value("search_evaluations", 0);
  }
  return p;
}

}  // namespace

Plan plan_from_json(const json& j, const std::string& where) {
  try {
    return read_plan(j, where);
  } catch (const json::exception& e) {  // a key of another type than the plan file's (e.g. "aliases": 3)
    throw InputError("plan " + where + ": " + e.what() + "; make it again with 'meshbench plan --out'");
  }
}

void write_output_file(const std::string& path, const std::string& text, bool force) {
  try {
    write_file_atomically(path, text, {.replace = force, .mode = std::nullopt});
  } catch (const AtomicWriteError& e) {
    switch (e.step()) {
      case AtomicWriteError::Step::exists: throw InputError("'" + path + "' exists; pass --force to overwrite it");
      case AtomicWriteError::Step::create:
      case AtomicWriteError::Step::write: throw InputError("cannot write '" + path + "'; check that its folder exists and is writable");
      case AtomicWriteError::Step::rename: break;
    }
    throw InputError("cannot write '" + path + "': " + e.reason());
  }
}

void write_plan(const Plan& plan, const std::string& path, bool force) {
  std::vector<const std::vector<int>*> placements;
  for (const auto& m : plan.mappings) placements.push_back(&m.mapping.slot_of_rank);
  write_output_file(path, detail::plan_file_text(plan_to_json(plan, false), placements), force);
}

Plan load_plan(const std::string& path) { return plan_from_json(detail::read_json_file(path, "plan"), "'" + path + "'"); }

void check_plan_matches(const Plan& plan, const topology::ClusterTopology& launched) {
  std::vector<int> per_node;
  for (int n = 0; n < launched.node_count(); ++n) per_node.push_back(launched.node(n).slot_count());
  if (per_node != plan.topology.slots_per_node) {
    auto describe = [](const std::vector<int>& v) {
      const bool uniform = std::all_of(v.begin(), v.end(), [&v](int x) { return x == v.front(); });
      return uniform ? std::to_string(v.size()) + " nodes x " + std::to_string(v.front()) + " slots"
                     : std::to_string(v.size()) + " nodes of different sizes";
    };
    throw InputError("the plan was made for " + describe(plan.topology.slots_per_node) + " but this job has " + describe(per_node) +
                     "; make a plan for this cluster");
  }
}

}  // namespace meshbench::mapping
