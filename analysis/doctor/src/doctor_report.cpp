#include <algorithm>
#include <chrono>
#include <ctime>
#include <map>
#include <set>

#include "analysis/doctor/doctor.hpp"
#include "analysis/doctor/doctor_checks.hpp"
#include "common/error.hpp"
#include "common/version.hpp"
#include "results/version_changes.hpp"

namespace meshbench::analysis {

namespace {

std::string utc_now() {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Rank facts as stored: each distinct (env, versions) once, with the ranks holding it as
// [first, last] ranges, so that 65,536 ranks with one environment store one entry, not 65,536
// (docs/reliability.md "Load"). Hosts are not repeated: the nodes list which ranks each holds.
nlohmann::json rank_facts_json(const std::vector<RankFacts>& ranks) {
  std::map<std::string, std::size_t> index_of_body;
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : ranks) {
    nlohmann::json body = f;
    body.erase("rank");
    body.erase("host");
    const auto [it, added] = index_of_body.try_emplace(body.dump(), out.size());
    if (added) {
      body["ranks"] = nlohmann::json::array();
      out.push_back(std::move(body));
    }
    auto& spans = out[it->second]["ranks"];
    if (!spans.empty() && spans.back()[1].get<int>() + 1 == f.rank) {
      spans.back()[1] = f.rank;
    } else {
      spans.push_back({f.rank, f.rank});
    }
  }
  return out;
}

std::vector<RankFacts> rank_facts_from_json(const nlohmann::json& groups, const std::vector<NodeFacts>& nodes) {
  std::map<int, std::string> host_of_rank;
  for (const auto& n : nodes) {
    for (int r : n.ranks) host_of_rank[r] = n.host;
  }
  std::vector<RankFacts> ranks;
  for (const auto& g : groups) {
    const auto facts = g.get<RankFacts>();
    for (const auto& span : g.at("ranks")) {
      for (int r = span.at(0).get<int>(); r <= span.at(1).get<int>(); ++r) {
        RankFacts f = facts;
        f.rank = r;
        if (const auto it = host_of_rank.find(r); it != host_of_rank.end()) f.host = it->second;
        ranks.push_back(std::move(f));
      }
    }
  }
  std::sort(ranks.begin(), ranks.end(), [](const RankFacts& a, const RankFacts& b) { return a.rank < b.rank; });
  return ranks;
}

}  // namespace

const Check* DoctorFindings::find(std::string_view id) const {
  auto it = std::find_if(checks.begin(), checks.end(), [&](const Check& c) { return c.id == id; });
  return it == checks.end() ? nullptr : &*it;
}

int DoctorFindings::count(CheckStatus status) const {
  return static_cast<int>(std::count_if(checks.begin(), checks.end(), [&](const Check& c) { return c.status == status; }));
}

int DoctorFindings::exit_status() const { return failed() ? kExitFailure : kExitOk; }

DoctorFindings evaluate_doctor(std::vector<RankFacts> ranks, std::vector<NodeFacts> nodes, ClockMeasurement clock,
                               const DoctorOptions& options) {
  DoctorFindings r;
  r.meshbench_version = kVersion;
  r.created_utc = utc_now();
  r.world_size = static_cast<int>(ranks.size());
  r.strict = options.strict;
  r.env_template_source = options.env_template.source;
  r.node_type_option = options.node_type;
  std::sort(ranks.begin(), ranks.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  const auto types = resolve_node_types(nodes, options.node_type);

  r.checks.push_back(check_env_template(ranks, options.env_template, options.strict));
  r.checks.push_back(check_env_identical(ranks));
  r.checks.push_back(check_env_legacy(ranks, nodes, options.env_template));
  for (auto& c : check_versions(ranks, nodes, types)) r.checks.push_back(std::move(c));
  r.checks.push_back(check_fabric(nodes, types));
  r.checks.push_back(check_gpu_count(nodes, types));
  r.checks.push_back(check_efa_count(nodes, types));
  r.checks.push_back(check_mtu(nodes));
  r.checks.push_back(check_clock(clock, options.clock_threshold_ms));
  r.checks.push_back(check_gpu_health(nodes));

  // Versions table: the first rank of each host speaks for the host's process-level versions.
  std::set<std::string> hosts_done;
  for (const auto& rank : ranks) {
    if (!hosts_done.insert(rank.host).second) continue;
    for (const auto& [component, info] : rank.versions) {
      if (info.present()) r.versions[component][rank.host] = info.version;
    }
  }
  for (const auto& n : nodes) {
    for (const auto& [component, info] : n.versions) {
      if (info.present()) r.versions[component][n.host] = info.version;
    }
  }
  r.ranks = std::move(ranks);
  r.nodes = std::move(nodes);
  r.clock = std::move(clock);
  return r;
}

void to_json(nlohmann::json& j, const Check& c) {
  j = {{"id", c.id}, {"title", c.title}, {"status", to_string(c.status)}, {"reason", c.reason}, {"fix", c.fix}, {"details", c.details}};
}

void from_json(const nlohmann::json& j, Check& c) {
  c.id = j.at("id").get<std::string>();
  c.title = j.value("title", "");
  c.status = parse_check_status(j.at("status").get<std::string>());
  c.reason = j.value("reason", "");
  c.fix = j.value("fix", "");
  c.details = j.value("details", std::map<std::string, std::string>{});
}

void to_json(nlohmann::json& j, const DoctorFindings& r) {
  nlohmann::json offsets = nlohmann::json::array();
  for (const auto& o : r.clock.offsets) {
    offsets.push_back({{"host", o.host},
                       {"rank", o.rank},
                       {"offset_ms", o.offset_ms},
                       {"rtt_ms", o.rtt_ms},
                       {"samples", o.samples},
                       {"moved_ms", o.moved_ms}});
  }
  const std::string overall = r.failed() ? "FAIL" : (r.count(CheckStatus::warn) > 0 ? "WARN" : "PASS");
  j = {{"schema", "meshbench.doctor"},
       {"schema_version", r.schema_version},
       {"meshbench_version", r.meshbench_version},
       {"created_utc", r.created_utc},
       {"world_size", r.world_size},
       {"mpi", r.mpi},
       {"strict", r.strict},
       {"env_template", r.env_template_source},
       {"node_type", r.node_type_option},
       {"summary",
        {{"status", overall},
         {"exit_status", r.exit_status()},
         {"pass", r.count(CheckStatus::pass)},
         {"warn", r.count(CheckStatus::warn)},
         {"fail", r.count(CheckStatus::fail)},
         {"skip", r.count(CheckStatus::skip)}}},
       {"checks", r.checks},
       {"versions", r.versions},
       {"clock", {{"measured", r.clock.measured}, {"note", r.clock.note}, {"same_node", r.clock.same_node}, {"offsets", offsets}}},
       {"rank_facts", rank_facts_json(r.ranks)},
       {"nodes", r.nodes}};
}

void from_json(const nlohmann::json& j, DoctorFindings& r) {
  const int version = j.value("schema_version", 0);
  if (j.value("schema", "") != "meshbench.doctor" || (version != kDoctorSchemaVersion && version != 1)) {
    throw InputError("not a meshbench doctor report of schema version " + std::to_string(kDoctorSchemaVersion) + " (found schema '" +
                     j.value("schema", "") + "' version " + std::to_string(version) + "); use the meshbench that wrote it");
  }
  r.meshbench_version = j.value("meshbench_version", "");
  r.created_utc = j.value("created_utc", "");
  r.world_size = j.value("world_size", 1);
  r.mpi = j.value("mpi", false);
  r.strict = j.value("strict", false);
  r.env_template_source = j.value("env_template", "");
  r.node_type_option = j.value("node_type", "");
  r.checks = j.value("checks", std::vector<Check>{});
  r.versions = j.value("versions", std::map<std::string, std::map<std::string, std::string>>{});
  const auto clock = j.value("clock", nlohmann::json::object());
  r.clock.measured = clock.value("measured", false);
  r.clock.note = clock.value("note", "");
  r.clock.same_node = clock.value("same_node", false);
  r.clock.offsets.clear();
  const nlohmann::json offsets = clock.value("offsets", nlohmann::json::array());
  for (const auto& o : offsets) {
    r.clock.offsets.push_back({o.value("host", ""), o.value("rank", 0), o.value("offset_ms", 0.0), o.value("rtt_ms", 0.0),
                               o.value("samples", 0), o.value("moved_ms", 0.0)});
  }
  r.nodes = j.value("nodes", std::vector<NodeFacts>{});
  r.ranks = version == 1 ? j.value("ranks", std::vector<RankFacts>{})
                         : rank_facts_from_json(j.value("rank_facts", nlohmann::json::array()), r.nodes);
  r.schema_version = kDoctorSchemaVersion;  // read into this version's form
}

DoctorFindings doctor_findings_from_json(const nlohmann::json& j) {
  DoctorFindings r;
  from_json(j, r);
  return r;
}

std::map<std::string, std::string> common_versions(const DoctorFindings& report) { return results::common_versions(report.versions); }

std::vector<VersionChange> version_changes(const DoctorFindings& before, const DoctorFindings& after) {
  std::vector<VersionChange> out;
  for (auto& c : results::value_changes(common_versions(before), common_versions(after), "absent")) {
    out.push_back({std::move(c.name), std::move(c.before), std::move(c.after)});
  }
  return out;
}

}  // namespace meshbench::analysis
