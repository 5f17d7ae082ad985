#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

#include "analysis/doctor/doctor_facts.hpp"

namespace meshbench::analysis {

std::string local_hostname() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

bool is_launcher_identity(const std::string& name) {
  // Variables the launcher sets to this process's own rank, node or session: they differ on
  // every rank by design, say nothing rank and host do not, and would make every rank's facts
  // distinct, so that 65,536 ranks stored 65,536 copies of one environment.
  static constexpr std::array<std::string_view, 10> kLauncherSuffixes = {
      "_RANK", "_LOCALID", "_PROCID", "_NODEID", "_vpid", "_TASK_PID", "_node_rank", "_TOPOLOGY_ADDR", "NODENAME", "_session_dir"};
  static constexpr std::array<std::string_view, 7> kLauncherNames = {"PMIX_ID",
                                                                     "PMIX_HOSTNAME",
                                                                     "HOSTNAME",
                                                                     "OMPI_FILE_LOCATION",
                                                                     "SLURM_GTIDS",
                                                                     "OMPI_MCA_orte_hnp_uri",
                                                                     "OMPI_MCA_orte_local_daemon_uri"};
  // The PMIx server of each node: its address and session paths.
  static constexpr std::array<std::string_view, 2> kPrefixes = {"PMIX_SERVER_", "PMIX_DSTORE_"};
  if (std::find(kLauncherNames.begin(), kLauncherNames.end(), name) != kLauncherNames.end()) return true;
  if (std::any_of(kPrefixes.begin(), kPrefixes.end(), [&](std::string_view p) { return name.rfind(p, 0) == 0; })) return true;
  return std::any_of(kLauncherSuffixes.begin(), kLauncherSuffixes.end(),
                     [&](std::string_view s) { return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0; });
}

RankFacts collect_rank_facts(int rank, const std::string& host, const EnvTemplate& tmpl) {
  RankFacts f;
  f.rank = rank;
  f.host = host;
  f.env = results::recorded_environment();
  // The template may name variables outside the allow-list (LD_PRELOAD, PYTHONPATH); record those
  // too so they can be compared, but only through the same secret filter.
  for (const auto& e : tmpl.entries) {
    const bool known = std::any_of(f.env.begin(), f.env.end(), [&](const auto& kv) { return kv.first == e.name; });
    const char* value = std::getenv(e.name.c_str());
    if (!known && value != nullptr && !results::looks_like_secret(e.name)) f.env.emplace_back(e.name, value);
  }
  std::erase_if(f.env, [](const auto& kv) { return is_launcher_identity(kv.first); });
  std::sort(f.env.begin(), f.env.end());
  f.versions = read_process_versions();
  return f;
}

NodeFacts collect_node_facts(const std::string& host, int leader_rank, std::vector<int> ranks) {
  NodeFacts f;
  f.host = host;
  f.leader_rank = leader_rank;
  f.ranks = std::move(ranks);
  f.instance_type = detect_instance_type();
  f.pci = count_pci_devices();
  f.interfaces = read_net_interfaces();
  f.versions = read_node_versions();
  f.fabric = read_fabric();
  f.gpu = read_gpu_health();
  return f;
}

namespace {

template <typename T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

template <typename T>
std::optional<T> get_opt(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return j.at(key).get<T>();
}

}  // namespace

void to_json(nlohmann::json& j, const VersionInfo& v) { j = {{"version", v.version}, {"source", v.source}}; }
void from_json(const nlohmann::json& j, VersionInfo& v) {
  v.version = j.value("version", "");
  v.source = j.value("source", "");
}

void to_json(nlohmann::json& j, const FabricEntry& e) {
  j = {{"provider", e.provider}, {"fabric", e.fabric}, {"domain", e.domain}, {"ep_type", e.ep_type}};
}
void from_json(const nlohmann::json& j, FabricEntry& e) {
  e.provider = j.value("provider", "");
  e.fabric = j.value("fabric", "");
  e.domain = j.value("domain", "");
  e.ep_type = j.value("ep_type", "");
}

void to_json(nlohmann::json& j, const GpuHealth& g) {
  j = {{"index", g.index},
       {"name", g.name},
       {"bus_id", g.bus_id},
       {"temperature_c", opt(g.temperature_c)},
       {"power_w", opt(g.power_w)},
       {"power_limit_w", opt(g.power_limit_w)},
       {"ecc_uncorrected", opt(g.ecc_uncorrected)},
       {"sm_clock_mhz", opt(g.sm_clock_mhz)},
       {"max_sm_clock_mhz", opt(g.max_sm_clock_mhz)},
       {"throttle", g.throttle},
       {"pcie_replays", opt(g.pcie_replays)}};
}
void from_json(const nlohmann::json& j, GpuHealth& g) {
  g.index = j.value("index", 0);
  g.name = j.value("name", "");
  g.bus_id = j.value("bus_id", "");
  g.temperature_c = get_opt<double>(j, "temperature_c");
  g.power_w = get_opt<double>(j, "power_w");
  g.power_limit_w = get_opt<double>(j, "power_limit_w");
  g.ecc_uncorrected = get_opt<long long>(j, "ecc_uncorrected");
  g.sm_clock_mhz = get_opt<double>(j, "sm_clock_mhz");
  g.max_sm_clock_mhz = get_opt<double>(j, "max_sm_clock_mhz");
  g.throttle = j.value("throttle", "");
  g.pcie_replays = get_opt<long long>(j, "pcie_replays");
}

void to_json(nlohmann::json& j, const RankFacts& f) {
  nlohmann::json env = nlohmann::json::object();
  for (const auto& [k, v] : f.env) env[k] = v;
  j = {{"rank", f.rank}, {"host", f.host}, {"env", env}, {"versions", f.versions}};
}
void from_json(const nlohmann::json& j, RankFacts& f) {
  f.rank = j.value("rank", 0);
  f.host = j.value("host", "");
  f.env.clear();
  const nlohmann::json env = j.value("env", nlohmann::json::object());
  for (const auto& [k, v] : env.items()) f.env.emplace_back(k, v.get<std::string>());
  f.versions = j.value("versions", VersionMap{});
}

void to_json(nlohmann::json& j, const NodeFacts& f) {
  nlohmann::json nics = nlohmann::json::array();
  for (const auto& n : f.interfaces) nics.push_back({{"name", n.name}, {"mtu", n.mtu}, {"driver", n.driver}});
  j = {{"host", f.host},
       {"leader_rank", f.leader_rank},
       {"ranks", f.ranks},
       {"instance_type", f.instance_type},
       {"gpus", f.pci.gpus},
       {"efa_devices", f.pci.efa},
       {"interfaces", nics},
       {"versions", f.versions},
       {"fabric",
        {{"probed", f.fabric.listed},  // the key results files already hold
         {"note", f.fabric.note},
         {"fi_provider_env", f.fabric.fi_provider_env},
         {"entries", f.fabric.entries}}},
       {"gpu", {{"source", f.gpu.source}, {"note", f.gpu.note}, {"gpus", f.gpu.gpus}}}};
}
void from_json(const nlohmann::json& j, NodeFacts& f) {
  f.host = j.value("host", "");
  f.leader_rank = j.value("leader_rank", 0);
  f.ranks = j.value("ranks", std::vector<int>{});
  f.instance_type = j.value("instance_type", "");
  f.pci.gpus = j.value("gpus", 0);
  f.pci.efa = j.value("efa_devices", 0);
  f.interfaces.clear();
  const nlohmann::json nics = j.value("interfaces", nlohmann::json::array());
  for (const auto& n : nics) {
    f.interfaces.push_back({n.value("name", ""), n.value("mtu", 0), n.value("driver", "")});
  }
  f.versions = j.value("versions", VersionMap{});
  const auto fabric = j.value("fabric", nlohmann::json::object());
  f.fabric.listed = fabric.value("probed", false);
  f.fabric.note = fabric.value("note", "");
  f.fabric.fi_provider_env = fabric.value("fi_provider_env", "");
  f.fabric.entries = fabric.value("entries", std::vector<FabricEntry>{});
  const auto gpu = j.value("gpu", nlohmann::json::object());
  f.gpu.source = gpu.value("source", "");
  f.gpu.note = gpu.value("note", "");
  f.gpu.gpus = gpu.value("gpus", std::vector<GpuHealth>{});
}

}  // namespace meshbench::analysis
