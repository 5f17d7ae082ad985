#include <ostream>

#include "analysis/logs/nccl_log.hpp"

namespace meshbench::analysis {

namespace {

nlohmann::json counts_json(const std::map<NcclTransport, int>& counts) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [t, n] : counts) j[std::string(to_string(t))] = n;
  return j;
}

std::string counts_text(const std::map<NcclTransport, int>& counts) {
  std::string out;
  for (const auto& [t, n] : counts) out += (out.empty() ? "" : ", ") + std::string(to_string(t)) + " " + std::to_string(n);
  return out.empty() ? "none logged" : out;
}

template <typename Set>
std::string joined(const Set& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

nlohmann::json to_json(const NcclLogSummary& s) {
  nlohmann::json comms = nlohmann::json::array();
  for (const auto& c : s.communicators) {
    nlohmann::json pairs = nlohmann::json::object();
    for (const auto& [pair, classes] : c.pairs) {
      nlohmann::json names = nlohmann::json::array();
      for (auto t : classes) names.push_back(to_string(t));
      pairs[std::to_string(pair.first) + "->" + std::to_string(pair.second)] = names;
    }
    comms.push_back({{"comm_id", c.comm_id},
                     {"nranks", c.nranks},
                     {"nnodes", c.nnodes},
                     {"ranks_seen", c.ranks_seen},
                     {"hosts", c.hosts},
                     {"init_complete", c.init_complete},
                     {"channels", {{"coll", c.coll_channels}, {"nvls", c.nvls_channels}, {"p2p", c.p2p_channels}}},
                     {"transports", counts_json(c.transport_counts)},
                     {"pairs", pairs}});
  }
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& w : s.warnings) {
    warnings.push_back({{"host", w.host}, {"pid", w.pid}, {"location", w.location}, {"message", w.message}, {"timestamp", w.timestamp}});
  }
  nlohmann::json used = nlohmann::json::array();
  for (auto t : transports_used(s)) used.push_back(to_string(t));
  return {{"nccl_version", s.nccl_version},
          {"nccl_cuda", s.nccl_cuda},
          {"nccl_versions", s.nccl_versions},
          {"cuda_driver", s.cuda_driver},
          {"hosts", s.hosts},
          {"processes", s.processes.size()},
          {"net_plugins", s.net_plugins},
          {"networks", s.networks},
          {"ofi",
           {{"plugin_version", s.ofi_plugin_version},
            {"libfabric_version", s.ofi_libfabric_version},
            {"provider", s.ofi_provider},
            {"fabric", s.ofi_fabric},
            {"nics", s.ofi_nics},
            {"platform", s.ofi_platform},
            {"protocol", s.ofi_protocol}}},
          {"nvls", {{"available", s.nvls_available}, {"unavailable", s.nvls_unavailable}}},
          {"transports", counts_json(s.transport_counts)},
          {"transports_used", used},
          {"communicators", comms},
          {"warnings", warnings},
          {"lines", s.lines},
          {"nccl_lines", s.nccl_lines}};
}

void print_nccl_summary(const NcclLogSummary& s, std::ostream& out) {
  out << "NCCL " << (s.nccl_version.empty() ? "version not logged" : s.nccl_version)
      << (s.nccl_cuda.empty() ? "" : " (CUDA " + s.nccl_cuda + ")") << " on " << s.hosts.size() << " host(s), " << s.processes.size()
      << " process(es); " << s.nccl_lines << " NCCL lines of " << s.lines << "\n";
  if (s.nccl_versions.size() > 1) out << "  MIXED NCCL versions: " << joined(s.nccl_versions) << "\n";
  out << "network: " << (s.networks.empty() ? "not logged" : joined(s.networks))
      << "; net plugin: " << (s.net_plugins.empty() ? "not logged" : joined(s.net_plugins)) << "\n";
  if (!s.ofi_plugin_version.empty() || !s.ofi_provider.empty()) {
    out << "aws-ofi-nccl " << (s.ofi_plugin_version.empty() ? "?" : s.ofi_plugin_version)
        << (s.ofi_libfabric_version.empty() ? "" : ", libfabric " + s.ofi_libfabric_version) << ", provider "
        << (s.ofi_provider.empty() ? "not logged" : s.ofi_provider) << (s.ofi_fabric.empty() ? "" : " (fabric " + s.ofi_fabric + ")")
        << (s.ofi_nics >= 0 ? ", " + std::to_string(s.ofi_nics) + " NICs" : "")
        << (s.ofi_platform.empty() ? "" : ", platform " + s.ofi_platform) << (s.ofi_protocol.empty() ? "" : ", protocol " + s.ofi_protocol)
        << "\n";
  }
  if (s.nvls_available + s.nvls_unavailable > 0) {
    out << "NVLS multicast: available on " << s.nvls_available << " device(s), not available on " << s.nvls_unavailable << "\n";
  }
  out << "transports (connection lines): " << counts_text(s.transport_counts) << "\n";
  out << "communicators: " << s.communicators.size() << "\n";
  for (const auto& c : s.communicators) {
    out << "  " << c.comm_id << ": " << (c.nranks > 0 ? std::to_string(c.nranks) : "?") << " ranks on "
        << (c.nnodes > 0 ? std::to_string(c.nnodes) : "?") << " node(s), " << c.ranks_seen.size() << " rank(s) logged, " << c.init_complete
        << " Init COMPLETE";
    if (c.coll_channels >= 0) out << ", " << c.coll_channels << " coll channels";
    if (c.nvls_channels > 0) out << ", " << c.nvls_channels << " nvls channels";
    if (c.p2p_channels >= 0) out << ", " << c.p2p_channels << " p2p channels";
    out << "; " << counts_text(c.transport_counts) << "\n";
  }
  out << "warnings: " << s.warnings.size() << "\n";
  for (const auto& w : s.warnings) {
    out << "  " << (w.timestamp.empty() ? "" : "[" + w.timestamp + "] ") << w.host << ":" << w.pid << " " << w.location << " " << w.message
        << "\n";
  }
}

}  // namespace meshbench::analysis
