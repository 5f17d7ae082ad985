#include <algorithm>
#include <optional>
#include <set>

#include "analysis/doctor/doctor_checks.hpp"
#include "analysis/doctor/src/doctor_format.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

using detail::Grouping;
using detail::ranks_on_hosts;

namespace {

constexpr const char* kUnset = "(unset)";

std::optional<std::string> lookup(const RankFacts& r, const std::string& name) {
  for (const auto& [k, v] : r.env) {
    if (k == name) return v;
  }
  return std::nullopt;
}

std::string on_all(const std::vector<RankFacts>& ranks) {
  return ranks.size() == 1 ? "on rank 0" : "on all " + std::to_string(ranks.size()) + " ranks";
}

}  // namespace

Check check_env_template(const std::vector<RankFacts>& ranks, const EnvTemplate& tmpl, bool strict) {
  Check c{"env.template", "environment template", CheckStatus::pass, "", "", {}};
  const auto hosts = detail::host_by_rank(ranks);
  c.details["template"] = tmpl.source;
  if (!tmpl.ignored_secret_names.empty()) {
    c.details["ignored (secret-like names, never compared or printed)"] = join(tmpl.ignored_secret_names, ", ");
  }
  std::vector<std::string> unset_parts;
  std::vector<std::string> differ_parts;
  int matching = 0;
  for (const auto& e : tmpl.entries) {
    Grouping<int> seen;
    for (const auto& r : ranks) seen.add(lookup(r, e.name).value_or(kUnset), r.rank);
    std::vector<int> unset;
    std::vector<std::string> wrong;
    for (const auto& value : seen.values) {
      const auto& members = seen.members[value];
      const bool is_unset = value == kUnset;
      if (e.must_be_unset) {
        if (!is_unset) wrong.push_back(e.name + "=" + value + " (template: unset) on " + ranks_on_hosts(members, hosts));
      } else if (is_unset) {
        unset.insert(unset.end(), members.begin(), members.end());
      } else if (!e.shell_expansion && value != e.value) {
        wrong.push_back(e.name + "=" + value + " (template: " + e.value + ") on " + ranks_on_hosts(members, hosts));
      }
    }
    std::string detail =
        "template: " + (e.must_be_unset ? std::string("unset") : e.value) + (e.shell_expansion ? " (shell expansion: presence only)" : "");
    for (const auto& value : seen.values) detail += "; " + value + " on " + ranks_on_hosts(seen.members[value], hosts);
    c.details[e.name] = detail;
    if (!unset.empty()) {
      unset_parts.push_back(e.name + (unset.size() == ranks.size() ? "" : " (" + ranks_on_hosts(unset, hosts) + ")"));
    }
    differ_parts.insert(differ_parts.end(), wrong.begin(), wrong.end());
    if (unset.empty() && wrong.empty()) ++matching;
  }
  const int total = static_cast<int>(tmpl.entries.size());
  if (unset_parts.empty() && differ_parts.empty()) {
    c.reason = "all " + std::to_string(total) + " template variables as the template says " + on_all(ranks);
    return c;
  }
  std::vector<std::string> parts;
  if (!differ_parts.empty()) {
    c.status = (tmpl.builtin && !strict) ? CheckStatus::warn : CheckStatus::fail;
    parts.push_back("different: " + join(differ_parts, "; "));
  }
  if (!unset_parts.empty()) {
    c.status = worst(c.status, strict ? CheckStatus::fail : CheckStatus::warn);
    parts.push_back("unset " + std::string(unset_parts.size() == static_cast<std::size_t>(total) ? "(all) " : "") +
                    join(unset_parts, ", "));
  }
  c.reason = std::to_string(matching) + " of " + std::to_string(total) + " template variables match; " + join(parts, "; ");
  c.fix =
      "export the template's values in the job script (source the team's env file, e.g. from slurm/env/) "
      "so every rank gets them";
  if (tmpl.builtin) c.fix += "; name the team's own template with --env-template FILE";
  if (!strict && c.status == CheckStatus::warn) c.fix += "; --strict makes this a FAIL";
  return c;
}

Check check_env_identical(const std::vector<RankFacts>& ranks) {
  Check c{"env.identical", "NCCL/FI/CUDA settings identical on every rank", CheckStatus::pass, "", "", {}};
  if (ranks.size() <= 1) {
    c.status = CheckStatus::skip;
    c.reason = "one rank: nothing to compare (run under mpirun/srun to check the whole allocation)";
    return c;
  }
  const auto hosts = detail::host_by_rank(ranks);
  std::set<std::string> names;
  for (const auto& r : ranks) {
    for (const auto& kv : r.env) {
      if (is_behaviour_variable(kv.first)) names.insert(kv.first);
    }
  }
  std::vector<std::string> differing;
  for (const auto& name : names) {
    Grouping<int> seen;
    for (const auto& r : ranks) seen.add(lookup(r, name).value_or(kUnset), r.rank);
    if (seen.values.size() == 1) continue;
    std::vector<std::string> groups;
    for (const auto& value : seen.values) groups.push_back(value + " on " + ranks_on_hosts(seen.members[value], hosts));
    differing.push_back(name + " differs: " + join(groups, "; "));
    c.details[name] = join(groups, "; ");
  }
  c.details["compared"] = names.empty() ? "none set" : join(names, ", ");
  if (differing.empty()) {
    c.reason = detail::plural(static_cast<long long>(names.size()), "NCCL/FI/CUDA/loader variable") + " identical " + on_all(ranks);
    return c;
  }
  c.status = CheckStatus::fail;
  c.reason = join(differing, " | ");
  c.fix =
      "set these once for the whole job (sbatch --export, srun --export, mpirun -x) rather than per node, and "
      "look for node-local overrides (/etc/profile.d, ~/.bashrc, container images): a difference between "
      "ranks is a classic cause of hangs and slowdowns";
  return c;
}

Check check_env_legacy(const std::vector<RankFacts>& ranks, const std::vector<NodeFacts>& nodes, const EnvTemplate& tmpl) {
  Check c{"env.legacy", "legacy or harmful EFA/NCCL settings", CheckStatus::pass, "", "", {}};
  const auto hosts = detail::host_by_rank(ranks);
  std::map<std::string, const NodeFacts*> node_of;
  for (const auto& n : nodes) node_of[n.host] = &n;
  // finding text -> ranks; keeps each distinct finding once with the ranks it applies to.
  Grouping<int> findings;
  std::map<std::string, bool> harmful;
  std::map<std::string, bool> from_template;
  for (const auto& r : ranks) {
    EnvLegacyInput in;
    in.env = &r.env;
    auto version = [&](const VersionMap& m, const char* key) {
      auto it = m.find(key);
      return it == m.end() ? std::string() : it->second.version;
    };
    in.libfabric = version(r.versions, "libfabric");
    in.nccl = version(r.versions, "nccl");
    if (auto it = node_of.find(r.host); it != node_of.end()) {
      in.aws_ofi_nccl = version(it->second->versions, "aws_ofi_nccl");
      in.efa_installer = version(it->second->versions, "efa_installer");
      in.efa_devices = it->second->pci.efa;
    }
    for (const auto& f : legacy_env_findings(in)) {
      const std::string text = f.variable + (f.value.empty() ? "" : "=" + f.value) + ": " + f.guidance;
      findings.add(text, r.rank);
      harmful[text] = f.harmful;
      from_template[text] = std::any_of(tmpl.entries.begin(), tmpl.entries.end(), [&](const EnvTemplateEntry& e) {
        return e.name == f.variable && !e.must_be_unset && e.value == f.value;
      });
    }
  }
  std::vector<std::string> counted;
  for (const auto& text : findings.values) {
    const std::string where = ranks_on_hosts(findings.members[text], hosts);
    if (from_template[text]) {
      c.details[text] = where + " (set by the template: judged there, not counted here)";
      continue;
    }
    c.details[text] = where;
    counted.push_back(text);
    c.status = worst(c.status, harmful[text] ? CheckStatus::fail : CheckStatus::warn);
  }
  if (counted.empty()) {
    c.reason = "no legacy or harmful setting found for the versions present";
    return c;
  }
  c.reason = join(counted, " | ");
  c.fix =
      "remove the legacy settings from the job script and the team template (aws-ofi-nccl doc/efa-env-var.md); "
      "fix a harmful combination before running";
  return c;
}

}  // namespace meshbench::analysis
