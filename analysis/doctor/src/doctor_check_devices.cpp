#include <algorithm>
#include <set>

#include "analysis/doctor/doctor_checks.hpp"
#include "analysis/doctor/src/doctor_format.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

using detail::Grouping;

std::vector<std::string> resolve_node_types(const std::vector<NodeFacts>& nodes, const std::string& option) {
  std::vector<std::string> types;
  for (const auto& n : nodes) {
    if (option != "auto") {
      types.push_back(option);
    } else {
      auto spec = find_node_type(n.instance_type);
      types.emplace_back(spec ? std::string(spec->name) : "");
    }
  }
  return types;
}

namespace {

enum class Device { gpu, efa };

Check check_count(const std::vector<NodeFacts>& nodes, const std::vector<std::string>& types, Device device) {
  const bool gpu = device == Device::gpu;
  const std::string word = gpu ? "GPU" : "EFA device";
  Check c{gpu ? "devices.gpus" : "devices.efa", gpu ? "GPU count per node" : "EFA device count per node", CheckStatus::pass, "", "", {}};
  Grouping<std::string> counts;
  std::vector<std::string> wrong_for_type;
  std::set<std::string> type_names;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const int n = gpu ? nodes[i].pci.gpus : nodes[i].pci.efa;
    counts.add(std::to_string(n), nodes[i].host);
    const std::string type = i < types.size() ? types[i] : "";
    c.details[nodes[i].host] = detail::plural(n, word) + (type.empty() ? "" : " (node type " + type + ")");
    if (auto spec = find_node_type(type)) {
      type_names.insert(type);
      const int expected = gpu ? spec->gpus : spec->efa;
      if (n != expected) {
        wrong_for_type.push_back(nodes[i].host + " has " + std::to_string(n) + ", " + type + " has " + std::to_string(expected));
      }
    }
  }
  const std::string pci_id = gpu ? "PCI vendor 0x10de, class 0x03" : "PCI vendor 0x1d0f, device 0xefa*";
  if (counts.values.size() > 1) {
    std::vector<std::string> groups;
    for (const auto& v : counts.values) groups.push_back(v + " on " + join(counts.members[v], ", "));
    c.status = CheckStatus::fail;
    c.reason = word + " counts differ between nodes: " + join(groups, "; ");
  } else if (!wrong_for_type.empty()) {
    c.status = CheckStatus::fail;
    c.reason = "not as the node type says: " + join(wrong_for_type, "; ");
  }
  if (c.status == CheckStatus::fail) {
    c.fix = gpu ? "a GPU is missing or fell off the bus: check `nvidia-smi -L` and dmesg for Xid errors on that node, "
                  "then reboot or replace it"
                : "an EFA device is missing or not initialised: compare lspci -d 1d0f: with /sys/class/infiniband "
                  "and dmesg | grep efa on that node (p5en devices can come up late); replace the node if it persists";
    return c;
  }
  const int n = counts.values.empty() ? 0 : std::stoi(counts.values.front());
  const std::string scope = nodes.size() == 1 ? "on " + nodes.front().host : "on each of " + std::to_string(nodes.size()) + " nodes";
  if (n == 0 && type_names.empty()) {
    if (gpu) {
      c.status = CheckStatus::warn;
      c.reason = "no NVIDIA GPU (" + pci_id + ") " + scope +
                 ": meshbench run measures CPU slots with the MPI "
                 "backend here";
      c.fix = "run on GPU nodes for GPU numbers; --node-type says what a node should have";
    } else {
      c.status = CheckStatus::skip;
      c.reason = "no EFA device (" + pci_id + ") " + scope + ", and no node type that has EFA (--node-type " + node_type_names() + ")";
    }
    return c;
  }
  c.reason = detail::plural(n, word) + " " + scope +
             (type_names.empty() ? " (node type unknown: only equality checked)" : " as " + join(type_names, ", ") + " has");
  return c;
}

}  // namespace

Check check_gpu_count(const std::vector<NodeFacts>& nodes, const std::vector<std::string>& node_types) {
  return check_count(nodes, node_types, Device::gpu);
}

Check check_efa_count(const std::vector<NodeFacts>& nodes, const std::vector<std::string>& node_types) {
  return check_count(nodes, node_types, Device::efa);
}

Check check_mtu(const std::vector<NodeFacts>& nodes) {
  Check c{"devices.mtu", "network interface MTUs", CheckStatus::pass, "", "", {}};
  constexpr int kEfaMtu = 9001;
  std::vector<std::string> low;
  std::map<std::string, Grouping<std::string>> by_name;  // interface -> mtu -> hosts
  bool any_efa = false;
  int ena_interfaces = 0;
  for (const auto& n : nodes) {
    std::vector<std::string> listed;
    for (const auto& nic : n.interfaces) {
      listed.push_back(nic.name + "=" + std::to_string(nic.mtu) + (nic.driver.empty() ? "" : " (" + nic.driver + ")"));
      by_name[nic.name].add(std::to_string(nic.mtu), n.host);
      if (nic.driver == "ena") {
        ++ena_interfaces;
        if (n.pci.efa > 0 && nic.mtu < kEfaMtu) low.push_back(nic.name + " MTU " + std::to_string(nic.mtu) + " on " + n.host);
      }
    }
    any_efa = any_efa || n.pci.efa > 0;
    c.details[n.host] = listed.empty() ? "no interface" : join(listed, ", ");
  }
  std::vector<std::string> differ;
  for (auto& [name, groups] : by_name) {
    if (groups.values.size() < 2) continue;
    std::vector<std::string> parts;
    for (const auto& mtu : groups.values) parts.push_back(mtu + " on " + join(groups.members[mtu], ", "));
    differ.push_back(name + " MTU differs: " + join(parts, "; "));
  }
  if (!low.empty() || !differ.empty()) {
    c.status = CheckStatus::warn;
    std::vector<std::string> parts;
    if (!low.empty()) parts.push_back("below 9001 with EFA: " + join(low, "; "));
    parts.insert(parts.end(), differ.begin(), differ.end());
    c.reason = join(parts, " | ");
    c.fix =
        "set MTU 9001 on the ENA interfaces of EFA nodes (ip link set dev IFACE mtu 9001, or the cluster's "
        "network configuration) and the same MTU on every node";
    return c;
  }
  if (!any_efa) {
    c.status = CheckStatus::skip;
    c.reason = "no EFA on any node: MTU 9001 is expected only with EFA (MTUs recorded in details)";
    return c;
  }
  c.reason =
      std::to_string(ena_interfaces) + " ENA interface(s) at MTU 9001 on " + detail::plural(static_cast<long long>(nodes.size()), "node");
  return c;
}

Check check_fabric(const std::vector<NodeFacts>& nodes, const std::vector<std::string>& node_types) {
  Check c{"fabric.provider", "libfabric provider (efa with RDM, no tcp/sockets fallback)", CheckStatus::skip, "", "", {}};
  Grouping<std::string> outcomes;  // "STATUS|reason" -> hosts
  std::map<std::string, FabricVerdict> verdicts;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& n = nodes[i];
    FabricVerdict v;
    if (!n.fabric.listed) {
      v = {CheckStatus::skip, n.fabric.note, ""};
    } else {
      auto spec = find_node_type(i < node_types.size() ? node_types[i] : "");
      v = evaluate_fabric(n.fabric.entries, {n.pci.efa, spec && spec->efa > 0, n.fabric.fi_provider_env});
      if (n.fabric.entries.empty() && !n.fabric.note.empty()) v.reason += " [" + n.fabric.note + "]";
    }
    c.details[n.host] = n.fabric.listed ? summarise_providers(n.fabric.entries) : n.fabric.note;
    const std::string key = std::string(to_string(v.status)) + "|" + v.reason;
    outcomes.add(key, n.host);
    verdicts[key] = v;
  }
  // The worst outcome decides; every distinct outcome is named with its hosts. A node that could
  // not be checked next to nodes that passed is a WARN: the fallback may hide there.
  std::set<CheckStatus> statuses;
  for (const auto& key : outcomes.values) statuses.insert(verdicts[key].status);
  c.status = CheckStatus::pass;
  for (auto s : statuses) c.status = worst(c.status, s == CheckStatus::skip ? CheckStatus::warn : s);
  if (statuses == std::set<CheckStatus>{CheckStatus::skip}) c.status = CheckStatus::skip;
  std::vector<std::string> parts;
  for (const auto& key : outcomes.values) {
    const auto& v = verdicts[key];
    parts.push_back(outcomes.values.size() == 1 && nodes.size() == 1 ? v.reason : join(outcomes.members[key], ", ") + ": " + v.reason);
    if (!v.fix.empty() && c.fix.find(v.fix) == std::string::npos) c.fix += (c.fix.empty() ? "" : "; ") + v.fix;
  }
  if (outcomes.values.size() == 1 && nodes.size() > 1) parts = {verdicts[outcomes.values.front()].reason + " (all nodes)"};
  c.reason = join(parts, " | ");
  return c;
}

}  // namespace meshbench::analysis
