// JSON form of the topology; docs/topology.md documents every field.
#include "topology/json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "common/json_integer.hpp"

namespace meshbench::topology {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

// Bandwidths are NCCL's figures (at most one decimal in practice); rounding keeps the
// output free of float noise without losing them.
double tidy(double v) { return std::round(v * 1000.0) / 1000.0; }
// A NIC's line rate, and a bandwidth between slots, keep every whole Mbit/s (0.000125 GB/s): a
// link shaped to 250 Mbit/s is 0.03125 GB/s in every rank's copy of the topology, not 0.031,
// and an in-node path shaped to 100 Mbit/s 0.0125 GB/s on every node, not 0.013 on all but the
// node that discovered it.
double tidy_rate(double gbps) { return std::round(gbps * 1e6) / 1e6; }

ojson slot_json(const NodeTopology& node, const Slot& s) {
  return {{"index", s.index},
          {"kind", to_string(s.kind)},
          {"pci", s.pci},
          {"numa", s.numa},
          {"model", s.model},
          {"pci_switch", s.pci_switch},
          {"rail", node.rails[static_cast<std::size_t>(s.index)]},
          {"rail_bandwidth_gbps", tidy(node.rail_bandwidth_gbps(s.index))}};
}

ojson nic_json(const Nic& n) {
  return {{"name", n.name},
          {"kind", to_string(n.kind)},
          {"pci", n.pci},
          {"numa", n.numa},
          {"speed_gbps", tidy_rate(n.speed_gbps)},
          {"line_rate_gbit", tidy(n.speed_gbps * 8.0)},
          {"pci_switch", n.pci_switch}};
}

ojson slots_json(const NodeTopology& node) {
  ojson out = ojson::array();
  for (const auto& s : node.slots) out.push_back(slot_json(node, s));
  return out;
}

ojson nics_json(const NodeTopology& node) {
  ojson out = ojson::array();
  for (const auto& n : node.nics) out.push_back(nic_json(n));
  return out;
}

// A slots x slots matrix of `cell(a, b)`.
template <typename Cell>
ojson slot_matrix(const NodeTopology& node, Cell cell) {
  ojson rows = ojson::array();
  for (int a = 0; a < node.slot_count(); ++a) {
    ojson row = ojson::array();
    for (int b = 0; b < node.slot_count(); ++b) row.push_back(cell(a, b));
    rows.push_back(std::move(row));
  }
  return rows;
}

ojson class_matrix(const NodeTopology& node) {
  return slot_matrix(node, [&](int a, int b) { return std::string(to_string(node.link(a, b))); });
}

ojson bandwidth_matrix(const NodeTopology& node) {
  return slot_matrix(node, [&](int a, int b) { return tidy_rate(node.bandwidth(a, b)); });
}

const json& need(const json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) throw InputError("topology JSON: " + where + " has no \"" + key + "\"");
  return j.at(key);
}

template <typename T>
T get(const json& j, const char* key, const std::string& where) {
  try {
    return need(j, key, where).get<T>();
  } catch (const json::exception& e) {
    throw InputError("topology JSON: " + where + " \"" + key + "\" has the wrong type (" + e.what() + ")");
  }
}

// An integer field, refused past int's range (common/json_integer.hpp says why).
int whole_number(const json& v, const std::string& what) {
  const auto i = json_integer<int>(v);
  if (!i) {
    throw InputError("topology JSON: " + what + " must be a whole number from " + std::to_string(std::numeric_limits<int>::min()) + " to " +
                     std::to_string(std::numeric_limits<int>::max()));
  }
  return *i;
}

int whole_number(const json& j, const char* key, const std::string& where) {
  return whole_number(need(j, key, where), where + " \"" + key + "\"");
}

int whole_number_or(const json& j, const char* key, int fallback, const std::string& where) {
  const auto it = j.find(key);
  return it == j.end() ? fallback : whole_number(*it, where + " \"" + key + "\"");
}

std::vector<int> whole_numbers_or_empty(const json& j, const char* key, const std::string& where) {
  std::vector<int> out;
  const auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_array()) throw InputError("topology JSON: " + where + " \"" + key + "\" must be a list of whole numbers");
  for (const json& v : *it) out.push_back(whole_number(v, where + " \"" + key + "\""));
  return out;
}

SlotKind parse_slot_kind(const std::string& s, const std::string& where) {
  if (s == "gpu") return SlotKind::gpu;
  if (s == "cpu") return SlotKind::cpu;
  throw InputError("topology JSON: " + where + " kind '" + s + "' is neither gpu nor cpu");
}

NicKind parse_nic_kind(const std::string& s) {
  for (NicKind k : {NicKind::efa, NicKind::ib, NicKind::eth, NicKind::other}) {
    if (to_string(k) == s) return k;
  }
  return NicKind::other;
}

}  // namespace

ojson to_json(const NodeTopology& node, bool raw_xml) {
  ojson j = {{"hostname", node.hostname},     {"node_type", node.node_type},
             {"source", node.source},         {"cpu", node.cpu},
             {"numa_nodes", node.numa_nodes}, {"notes", node.notes},
             {"slots", slots_json(node)},     {"nics", nics_json(node)},
             {"class", class_matrix(node)},   {"bandwidth_gbps", bandwidth_matrix(node)}};
  if (raw_xml) j["raw_xml"] = node.raw_xml;
  return j;
}

ojson to_json(const ClusterTopology& c, const JsonOptions& options) {
  ojson j;
  j["schema"] = "meshbench-topology";
  j["schema_version"] = kTopologyJsonVersion;
  j["node_count"] = c.node_count();
  j["slot_count"] = c.slot_count();
  j["homogeneous"] = c.homogeneous();

  std::vector<int> nodes_per_layout(static_cast<std::size_t>(c.layout_count()), 0);
  // Nodes of one layout list the same slots and NICs: build them once per layout.
  std::vector<ojson> slots_of_layout, nics_of_layout;
  for (int l = 0; l < c.layout_count(); ++l) {
    slots_of_layout.push_back(slots_json(c.layout(l)));
    nics_of_layout.push_back(nics_json(c.layout(l)));
  }
  ojson nodes = ojson::array();
  for (int n = 0; n < c.node_count(); ++n) {
    const auto l = static_cast<std::size_t>(c.layout_of(n));
    ++nodes_per_layout[l];
    ojson node = {{"hostname", c.hostname(n)}, {"layout", c.layout_of(n)}, {"first_slot", c.first_slot_of(n)}};
    if (options.node_details) {
      node["slots"] = slots_of_layout[l];
      node["nics"] = nics_of_layout[l];
    }
    nodes.push_back(std::move(node));
  }
  j["nodes"] = std::move(nodes);

  ojson layouts = ojson::array(), within = ojson::array(), rails = ojson::array();
  for (int l = 0; l < c.layout_count(); ++l) {
    const NodeTopology& node = c.layout(l);
    const ojson described = to_json(node, options.raw_xml);
    ojson layout = {{"layout", l}, {"node_count", nodes_per_layout[static_cast<std::size_t>(l)]}};
    for (auto it = described.begin(); it != described.end(); ++it) {
      if (it.key() != "hostname" && it.key() != "class" && it.key() != "bandwidth_gbps") layout[it.key()] = it.value();
    }
    const ojson& classes = described["class"];
    const ojson& bandwidth = described["bandwidth_gbps"];
    layouts.push_back(std::move(layout));
    within.push_back({{"layout", l}, {"class", classes}, {"bandwidth_gbps", bandwidth}});
    ojson per_slot = ojson::array();
    for (int s = 0; s < node.slot_count(); ++s) per_slot.push_back(tidy(node.rail_bandwidth_gbps(s)));
    rails.push_back(std::move(per_slot));
  }
  j["layouts"] = std::move(layouts);
  j["links"] = {
      {"within_node", std::move(within)},
      {"between_nodes",
       {{"class", "NET"}, {"bandwidth", "the slower of the two slots' rail bandwidths"}, {"rail_bandwidth_gbps", std::move(rails)}}}};
  return j;
}

namespace {

// The readers below check what the documented form needs; a value of another type than the
// form's (e.g. "numa": "x") surfaces as nlohmann's type_error, which is bad input as well.
template <class Read>
auto checked(Read read) {
  try {
    return read();
  } catch (const json::exception& e) {
    throw InputError(std::string("topology JSON: ") + e.what());
  }
}

NodeTopology read_node(const json& j) {
  NodeTopology node;
  const std::string where = "layout";
  node.hostname = j.value("hostname", "");
  node.node_type = j.value("node_type", "");
  node.source = j.value("source", "");
  node.cpu = j.value("cpu", "");
  node.raw_xml = j.value("raw_xml", "");
  node.numa_nodes = whole_number_or(j, "numa_nodes", 1, where);
  node.notes = j.value("notes", std::vector<std::string>{});
  for (const json& s : need(j, "slots", where)) {
    Slot slot;
    slot.index = whole_number(s, "index", "slot");
    slot.kind = parse_slot_kind(get<std::string>(s, "kind", "slot"), "slot");
    slot.pci = s.value("pci", "");
    slot.numa = whole_number_or(s, "numa", -1, "slot");
    slot.model = s.value("model", "");
    slot.pci_switch = whole_number_or(s, "pci_switch", -1, "slot");
    node.rails.push_back(whole_numbers_or_empty(s, "rail", "slot"));
    node.slots.push_back(std::move(slot));
  }
  for (const json& n : need(j, "nics", where)) {
    Nic nic;
    nic.name = get<std::string>(n, "name", "nic");
    nic.kind = parse_nic_kind(n.value("kind", "other"));
    nic.pci = n.value("pci", "");
    nic.numa = whole_number_or(n, "numa", -1, "nic");
    nic.speed_gbps = n.value("speed_gbps", 0.0);
    nic.pci_switch = whole_number_or(n, "pci_switch", -1, "nic");
    node.nics.push_back(std::move(nic));
  }
  const std::size_t count = node.slots.size();
  const json& classes = need(j, "class", where);
  const json& bandwidth = need(j, "bandwidth_gbps", where);
  if (classes.size() != count || bandwidth.size() != count)
    throw InputError("topology JSON: a layout's link matrices are not slots x slots");
  for (std::size_t a = 0; a < count; ++a) {
    if (classes[a].size() != count || bandwidth[a].size() != count)
      throw InputError("topology JSON: a layout's link matrices are not slots x slots");
    for (std::size_t b = 0; b < count; ++b) {
      const auto link = parse_link_class(classes[a][b].get<std::string>());
      if (!link) throw InputError("topology JSON: unknown link class '" + classes[a][b].get<std::string>() + "'");
      node.links.push_back(*link);
      node.bandwidth_gbps.push_back(bandwidth[a][b].get<double>());
    }
  }
  for (const auto& rail : node.rails) {
    for (int nic : rail) {
      if (nic < 0 || nic >= static_cast<int>(node.nics.size()))
        throw InputError("topology JSON: a slot's rail names a NIC that is not listed");
    }
  }
  return node;
}

ClusterTopology read_cluster(const json& j) {
  if (!j.is_object()) throw InputError("topology JSON: expected an object with \"nodes\" and \"layouts\"");
  const int version = whole_number_or(j, "schema_version", kTopologyJsonVersion, "the topology");
  if (version != kTopologyJsonVersion) {
    throw InputError("topology JSON has schema_version " + std::to_string(version) + "; this meshbench reads version " +
                     std::to_string(kTopologyJsonVersion));
  }
  const json& layouts = need(j, "layouts", "the topology");
  const json& within = need(need(j, "links", "the topology"), "within_node", "\"links\"");
  std::vector<NodeTopology> described;
  for (std::size_t l = 0; l < layouts.size(); ++l) {
    json layout = layouts[l];
    if (l >= within.size()) throw InputError("topology JSON: layout " + std::to_string(l) + " has no \"within_node\" matrices");
    layout["class"] = within[l].at("class");
    layout["bandwidth_gbps"] = within[l].at("bandwidth_gbps");
    described.push_back(read_node(layout));
  }
  std::vector<int> layout_of;
  std::vector<std::string> hostnames;
  for (const json& n : need(j, "nodes", "the topology")) {
    const int l = whole_number(n, "layout", "node");
    if (l < 0 || l >= static_cast<int>(described.size()))
      throw InputError("topology JSON: a node names layout " + std::to_string(l) + ", which is not listed");
    layout_of.push_back(l);
    hostnames.push_back(get<std::string>(n, "hostname", "node"));
  }
  return ClusterTopology::from_layouts(std::move(described), layout_of, std::move(hostnames));
}

}  // namespace

NodeTopology node_from_json(const json& j) {
  return checked([&] { return read_node(j); });
}

ClusterTopology cluster_from_json(const json& j) {
  return checked([&] { return read_cluster(j); });
}

}  // namespace meshbench::topology

namespace meshbench::topology {

namespace {

bool is_flat(const ojson& array) {
  return std::none_of(array.begin(), array.end(), [](const ojson& e) { return e.is_object() || e.is_array(); });
}

// A slot or NIC: scalars and flat arrays only, printed on one line.
bool is_record(const ojson& object) {
  return std::all_of(object.begin(), object.end(), [](const ojson& e) { return !e.is_object() && (!e.is_array() || is_flat(e)); });
}

// nlohmann's compact dump with a space after each ',' and ':' outside strings.
void append_spaced(std::string& out, const ojson& j) {
  const std::string compact = j.dump();
  bool in_string = false, escaped = false;
  for (char c : compact) {
    out += c;
    if (in_string) {
      in_string = escaped || c != '"';
      escaped = !escaped && c == '\\';
    } else if (c == '"') {
      in_string = true;
    } else if (c == ',' || c == ':') {
      out += ' ';
    }
  }
}

void dump_into(std::string& out, const ojson& j, int indent, int depth) {
  const bool record = j.is_object() && is_record(j) && depth > 0;
  const bool flat_array = j.is_array() && is_flat(j);
  if (j.empty() || record || flat_array || !j.is_structured()) {
    append_spaced(out, j);
    return;
  }
  const std::string pad(static_cast<std::size_t>(indent * (depth + 1)), ' ');
  out += j.is_object() ? "{\n" : "[\n";
  std::size_t i = 0;
  for (auto it = j.begin(); it != j.end(); ++it, ++i) {
    out += pad;
    if (j.is_object()) {
      append_spaced(out, ojson(it.key()));
      out += ": ";
    }
    dump_into(out, it.value(), indent, depth + 1);
    out += i + 1 < j.size() ? ",\n" : "\n";
  }
  out.append(static_cast<std::size_t>(indent * depth), ' ');
  out += j.is_object() ? "}" : "]";
}

}  // namespace

std::string dump_readable(const ojson& value, int indent) {
  std::string out;
  dump_into(out, value, indent, 0);
  return out;
}

}  // namespace meshbench::topology
