#include <algorithm>
#include <map>
#include <set>

#include "analysis/doctor/fabric.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

std::string core_provider(const std::string& provider) { return provider.substr(0, provider.find(';')); }

std::string short_type(const std::string& ep_type) { return ep_type.rfind("FI_EP_", 0) == 0 ? ep_type.substr(6) : ep_type; }

}  // namespace

std::string summarise_providers(const std::vector<FabricEntry>& entries) {
  std::map<std::string, std::map<std::string, int>> counts;  // provider -> type -> entries
  std::vector<std::string> order;
  for (const auto& e : entries) {
    if (counts.find(e.provider) == counts.end()) order.push_back(e.provider);
    ++counts[e.provider][short_type(e.ep_type)];
  }
  std::string out;
  for (const auto& p : order) {
    out += (out.empty() ? "" : "; ") + p + ":";
    bool first = true;
    for (const auto& [type, n] : counts[p]) {
      out += std::string(first ? " " : ", ") + type + " x" + std::to_string(n);
      first = false;
    }
  }
  return out.empty() ? "none" : out;
}

FabricVerdict evaluate_fabric(const std::vector<FabricEntry>& entries, const FabricExpectation& expect) {
  std::set<std::string> efa_rdm_domains;
  std::set<std::string> efa_fabrics;
  bool efa_any = false;
  std::set<std::string> fallback_rdm;  // what NCCL's OFI plugin could pick instead of efa
  for (const auto& e : entries) {
    const bool rdm = e.ep_type == "FI_EP_RDM";
    if (core_provider(e.provider) == "efa") {
      efa_any = true;
      if (rdm) {
        efa_fabrics.insert(e.fabric);
        // efa and efa-direct (libfabric 2.x) list the same device twice; count devices once.
        if (e.fabric != "efa-direct" || efa_fabrics.count("efa") == 0) efa_rdm_domains.insert(e.domain);
      }
    } else if (rdm) {
      fallback_rdm.insert(e.provider);
    }
  }
  const std::string fallback = fallback_rdm.empty() ? "none" : join(fallback_rdm, ", ");
  const bool provider_forced = !expect.fi_provider_env.empty();
  const std::string forced_note = provider_forced ? " (FI_PROVIDER=" + expect.fi_provider_env + " limits what libfabric lists)" : "";

  if (!efa_rdm_domains.empty()) {
    FabricVerdict v{
        CheckStatus::pass,
        "efa provider with FI_EP_RDM on " + std::to_string(efa_rdm_domains.size()) + " domain(s), fabric " + join(efa_fabrics, ", "), ""};
    if (expect.efa_devices > 0 && static_cast<int>(efa_rdm_domains.size()) < expect.efa_devices) {
      v.status = CheckStatus::warn;
      v.reason += ", but PCI shows " + std::to_string(expect.efa_devices) + " EFA devices";
      v.fix =
          "a device is not usable by libfabric yet (p5en devices can initialise late): compare "
          "`fi_info -p efa -t FI_EP_RDM` with /sys/class/infiniband and check dmesg for efa errors";
    }
    return v;
  }
  if (efa_any) {
    return {CheckStatus::fail,
            "efa provider lists only " + summarise_providers(entries) +
                " endpoints and no FI_EP_RDM: NCCL's OFI plugin needs RDM and would fall back to " + fallback,
            "use the libfabric of the EFA installer (/opt/amazon/efa/lib first on LD_LIBRARY_PATH; >= 1.17)"};
  }
  if (expect.efa_devices > 0 || expect.node_type_expects_efa) {
    const std::string why = expect.efa_devices > 0 ? std::to_string(expect.efa_devices) + " EFA device(s) on PCI" : "the node type has EFA";
    return {CheckStatus::fail,
            "no efa provider although " + why + forced_note + ": NCCL traffic between nodes would silently fall back to " + fallback,
            "put the EFA installer's libfabric first on LD_LIBRARY_PATH, check `fi_info -p efa` and that the "
            "efa kernel module is loaded (lsmod | grep efa)"};
  }
  if (expect.fi_provider_env == "efa") {
    return {CheckStatus::warn,
            "FI_PROVIDER=efa is set but this node has no EFA device: a libfabric user cannot open an "
            "endpoint here",
            "run on EFA instances, or leave FI_PROVIDER unset for tests off AWS"};
  }
  return {CheckStatus::skip,
          "no EFA device on this node and no efa provider" + forced_note + "; RDM providers NCCL's OFI plugin could use: " + fallback, ""};
}

}  // namespace meshbench::analysis
