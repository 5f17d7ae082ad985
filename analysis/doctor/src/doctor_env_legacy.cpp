#include <algorithm>
#include <cctype>
#include <optional>

#include "analysis/doctor/doctor_env.hpp"
#include "analysis/doctor/versions.hpp"

namespace meshbench::analysis {

namespace {

std::optional<std::string> value_of(const EnvLegacyInput& in, std::string_view name) {
  if (in.env == nullptr) return std::nullopt;
  for (const auto& [k, v] : *in.env) {
    if (k == name) return v;
  }
  return std::nullopt;
}

bool at_least(const std::string& version, std::string_view minimum) { return !version.empty() && compare_versions(version, minimum) >= 0; }

bool below(const std::string& version, std::string_view limit) { return !version.empty() && compare_versions(version, limit) < 0; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

// The rules follow aws-ofi-nccl's doc/efa-env-var.md (docs/doctor.md, "Environment template"). A rule that needs a
// version fires only where that version is known, so a node without the plugin is not told
// that FI_PROVIDER is legacy: there the template's FI_PROVIDER=efa may be what it needs.
std::vector<EnvFinding> legacy_env_findings(const EnvLegacyInput& in) {
  std::vector<EnvFinding> out;
  const bool new_plugin = !in.aws_ofi_nccl.empty() && compare_versions(in.aws_ofi_nccl, "1.5.0") > 0;
  if (auto v = value_of(in, "FI_EFA_USE_DEVICE_RDMA"); v && at_least(in.libfabric, "1.18") && at_least(in.aws_ofi_nccl, "1.7.0")) {
    out.push_back(
        {"FI_EFA_USE_DEVICE_RDMA", *v, false, "not needed with libfabric >= 1.18.0 and aws-ofi-nccl >= 1.7.0 (harmless; remove it)"});
  }
  if (auto v = value_of(in, "FI_PROVIDER"); v && new_plugin) {
    out.push_back({"FI_PROVIDER", *v, false,
                   "aws-ofi-nccl " + in.aws_ofi_nccl +
                       " selects the efa provider itself; FI_PROVIDER was needed "
                       "only up to 1.5.0"});
  }
  if (auto v = value_of(in, "NCCL_PROTO"); v && iequals(*v, "simple") && new_plugin) {
    out.push_back({"NCCL_PROTO", *v, false,
                   "forcing the Simple protocol was needed only with aws-ofi-nccl <= 1.5.0; it costs small-message "
                   "latency"});
  }
  if (auto v = value_of(in, "FI_EFA_FORK_SAFE")) {
    out.push_back({"FI_EFA_FORK_SAFE", *v, false, "not needed anymore (current libfabric handles fork)"});
  }
  if (in.env != nullptr) {
    for (const auto& [k, v] : *in.env) {
      if (k.rfind("RDMAV_", 0) == 0) {
        out.push_back({k, v, false, "rdma-core fork settings (RDMAV_*) must not be used with EFA"});
      }
    }
  }
  for (const char* name : {"NCCL_BUFFSIZE", "NCCL_MIN_CHANNELS"}) {
    if (auto v = value_of(in, name)) {
      out.push_back({name, *v, false, "leave at NCCL's default unless a measurement shows it helps"});
    }
  }
  for (const char* name : {"NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE"}) {
    if (auto v = value_of(in, name); v && *v != "0") {
      out.push_back({name, *v, false,
                     "an isolation/debug setting: it turns off NVLink/PCIe peer or shared-memory transport "
                     "inside a node"});
    }
  }
  if (auto v = value_of(in, "NCCL_NET"); v && in.efa_devices > 0 && iequals(*v, "socket")) {
    out.push_back({"NCCL_NET", *v, false, "forces TCP sockets between nodes although EFA is present"});
  }
  // aws/aws-ofi-nccl#584: NCCL >= 2.19 with the libfabric of EFA installer < 1.29.1 fails to
  // register memory ("NET/OFI Unable to register memory (type = 2) ... RC: -22").
  if (below(in.efa_installer, "1.29.1") && at_least(in.nccl, "2.19")) {
    auto v = value_of(in, "FI_EFA_SET_CUDA_SYNC_MEMOPS");
    if (!v || *v != "0") {
      out.push_back({"FI_EFA_SET_CUDA_SYNC_MEMOPS", v.value_or(""), true,
                     "NCCL " + in.nccl + " with EFA installer " + in.efa_installer +
                         " fails to register GPU memory unless FI_EFA_SET_CUDA_SYNC_MEMOPS=0 (or upgrade the EFA "
                         "installer to >= 1.29.1)"});
    }
  }
  return out;
}

}  // namespace meshbench::analysis
