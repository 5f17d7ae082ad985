#pragma once
#include <string>
#include <vector>

#include "analysis/doctor/doctor_check.hpp"

namespace meshbench::analysis {

// One fi_info entry as libfabric's fi_getinfo returns it (what `fi_info` prints as provider,
// fabric, domain and type). Layered providers keep libfabric's name: "tcp;ofi_rxm".
struct FabricEntry {
  std::string provider;  // "efa", "tcp;ofi_rxm", "sockets"
  std::string fabric;    // "efa", "efa-direct", "192.168.0.0/24"
  std::string domain;    // "rdmap16s27-rdm", "efa_0-dgrm", "eth0"
  std::string ep_type;   // "FI_EP_RDM", "FI_EP_DGRAM", "FI_EP_MSG"
  bool operator==(const FabricEntry&) const = default;
};

// What fi_getinfo lists on this node. `listed` (stored as `probed`) is false where meshbench was built without
// libfabric; `note` then, or on a fi_getinfo error, says why the list is empty.
// fi_getinfo honours FI_PROVIDER, so the list is what a libfabric user in this environment sees.
struct FabricListing {
  bool listed = false;
  std::string note;
  std::string fi_provider_env;  // FI_PROVIDER as this process saw it ("" when unset)
  std::vector<FabricEntry> entries;
};
FabricListing read_fabric();

// What the node should have: EFA devices found on PCI, and whether its node type has EFA.
struct FabricExpectation {
  int efa_devices = 0;
  bool node_type_expects_efa = false;
  std::string fi_provider_env;
};

struct FabricVerdict {
  CheckStatus status = CheckStatus::skip;
  std::string reason;
  std::string fix;
};

// Pure: efa with an RDM endpoint PASSes; efa with only DGRAM, or no efa where EFA hardware is
// present or expected, FAILs (NCCL's OFI plugin would fall back to tcp/sockets); no EFA anywhere
// SKIPs, or WARNs when FI_PROVIDER=efa is set for a provider this node cannot have.
FabricVerdict evaluate_fabric(const std::vector<FabricEntry>& entries, const FabricExpectation& expect);

// "efa: RDM x4, DGRAM x4; tcp;ofi_rxm: RDM x2": the provider list in one line for details.
std::string summarise_providers(const std::vector<FabricEntry>& entries);

}  // namespace meshbench::analysis
