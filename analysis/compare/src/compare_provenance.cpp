// What changed between two runs besides the numbers: versions (the run's and doctor's),
// the machine's state, the allow-listed environment, and the run's shape.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/compare/compare.hpp"
#include "common/strings.hpp"
#include "results/version_changes.hpp"

namespace meshbench::analysis {

namespace {

constexpr const char* kAbsent = "(absent)";

using NameValues = results::NamedValues;

NameValues to_table(const std::vector<std::pair<std::string, std::string>>& pairs) {
  NameValues t;
  for (const auto& [k, v] : pairs) t.emplace(k, v);
  return t;
}

// doctor's "versions" (component -> host -> version) read leniently from the recorded JSON:
// what is not a string is left out, and a bare string is one host's version. One value per
// component, as the doctor itself gives it (results/version_changes.hpp).
NameValues doctor_versions(const std::string& doctor_json) {
  if (doctor_json.empty()) return {};
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(doctor_json);
  } catch (const nlohmann::json::exception&) {
    return {};
  }
  const auto versions = j.find("versions");
  if (versions == j.end() || !versions->is_object()) return {};
  results::VersionsByHost by_component;
  for (const auto& [component, hosts] : versions->items()) {
    std::map<std::string, std::string> by_host;
    if (hosts.is_object()) {
      for (const auto& [host, v] : hosts.items()) {
        if (v.is_string()) by_host[host] = v.get<std::string>();
      }
    } else if (hosts.is_string()) {
      by_host[""] = hosts.get<std::string>();
    }
    if (!by_host.empty()) by_component[component] = std::move(by_host);
  }
  return results::common_versions(by_component);
}

void diff(const std::string& kind, const NameValues& before, const NameValues& after, std::vector<ProvenanceChange>& out,
          bool skip_per_launch, int& hidden) {
  for (auto& c : results::value_changes(before, after, kAbsent)) {
    if (skip_per_launch && is_per_launch_variable(c.name)) {
      ++hidden;
      continue;
    }
    out.push_back({kind, std::move(c.name), std::move(c.before), std::move(c.after)});
  }
}

std::string joined_hosts(const results::ResultsFile& f) {
  std::vector<std::string> hosts;
  for (const auto& h : f.run().hosts) {
    if (std::find(hosts.begin(), hosts.end(), h) == hosts.end()) hosts.push_back(h);
  }
  return join(hosts, ",");
}

}  // namespace

bool is_per_launch_variable(const std::string& name) {
  // Open MPI and PMIx hand every launch its own ids, URIs, ports and session paths.
  static constexpr std::array<std::string_view, 18> kPrefixes = {
      "OMPI_COMM_WORLD_",      "OMPI_UNIVERSE_", "OMPI_FIRST_RANKS", "OMPI_FILE_LOCATION", "OMPI_MCA_orte_", "OMPI_MCA_ess_",
      "OMPI_MCA_initial_wdir", "OMPI_APP_CTX_",  "OMPI_NUM_APP_CTX", "OMPI_ARGV",          "OMPI_COMMAND",   "PMIX_SERVER_",
      "PMIX_DSTORE_",          "PMIX_ID",        "PMIX_NAMESPACE",   "PMIX_RANK",          "PMIX_HOSTNAME",  "PMIX_SYSTEM_TMPDIR"};
  // Slurm's job and step ids, a task's own numbers, and times.
  static constexpr std::array<std::string_view, 14> kParts = {"JOBID", "JOB_ID", "STEP_ID", "STEPID", "TASK_PID", "_PID",       "_URI",
                                                              "_PORT", "PROCID", "LOCALID", "NODEID", "_RANK",    "START_TIME", "END_TIME"};
  for (auto p : kPrefixes) {
    if (name.rfind(p, 0) == 0) return true;
  }
  for (auto p : kParts) {
    if (name.find(p) != std::string::npos) return true;
  }
  return false;
}

std::vector<ProvenanceChange> provenance_changes(const results::ResultsFile& base, const results::ResultsFile& next, bool all_environment,
                                                 int& hidden) {
  std::vector<ProvenanceChange> out;
  hidden = 0;
  diff("version", to_table(base.provenance().versions), to_table(next.provenance().versions), out, false, hidden);
  diff("doctor", doctor_versions(base.provenance().doctor_json), doctor_versions(next.provenance().doctor_json), out, false, hidden);
  NameValues run_before = {
      {"world_size", std::to_string(base.run().world_size)}, {"backend", base.run().backend}, {"hosts", joined_hosts(base)}};
  NameValues run_after = {
      {"world_size", std::to_string(next.run().world_size)}, {"backend", next.run().backend}, {"hosts", joined_hosts(next)}};
  diff("run", run_before, run_after, out, false, hidden);
  if (const double b = core_to_core_ns(base), n = core_to_core_ns(next); machine_states_differ(b, n)) {
    out.push_back({"machine", "core-to-core round trip", std::to_string(std::lround(b)) + " ns", std::to_string(std::lround(n)) + " ns"});
  }
  diff("environment", to_table(base.provenance().environment), to_table(next.provenance().environment), out, !all_environment, hidden);
  return out;
}

}  // namespace meshbench::analysis
