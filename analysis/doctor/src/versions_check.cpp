#include <algorithm>
#include <array>

#include "analysis/doctor/doctor_checks.hpp"
#include "analysis/doctor/src/doctor_format.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

using detail::Grouping;

namespace {

struct Component {
  const char* key;
  const char* title;
  bool per_rank;  // read by every rank (what it loads) rather than once per node
};

constexpr std::array<Component, 10> kComponents = {{
    {"nccl", "NCCL", true},
    {"cuda_driver", "CUDA driver (libcuda)", true},
    {"cuda_runtime", "CUDA runtime (libcudart)", true},
    {"nvidia_driver", "NVIDIA kernel driver", false},
    {"libfabric", "libfabric", true},
    {"aws_ofi_nccl", "aws-ofi-nccl plugin", false},
    {"efa_installer", "EFA installer", false},
    {"mpi", "MPI library", true},
    {"hwloc", "hwloc", true},
    {"kernel", "Linux kernel", false},
}};

// Minimums for p5-class nodes (docs/doctor.md, "Versions"): older versions are known not to work there.
struct Minimum {
  const char* component;
  const char* version;
};
constexpr std::array<Minimum, 4> kP5Minimums = {
    {{"cuda_runtime", "12.0"}, {"nccl", "2.18.5"}, {"aws_ofi_nccl", "1.7.3"}, {"efa_installer", "1.29.0"}}};

bool is_p5_class(const std::string& type) { return type == "p5" || type == "p5e" || type == "p5en"; }

struct Sample {
  std::string where;  // "rank 3 on b" or "b"
  std::string host;
  VersionInfo info;
};

}  // namespace

std::vector<Check> check_versions(const std::vector<RankFacts>& ranks, const std::vector<NodeFacts>& nodes,
                                  const std::vector<std::string>& node_types) {
  const auto hosts = detail::host_by_rank(ranks);
  const bool any_efa = std::any_of(nodes.begin(), nodes.end(), [](const NodeFacts& n) { return n.pci.efa > 0; });
  const bool p5 = std::any_of(node_types.begin(), node_types.end(), is_p5_class);
  std::vector<Check> out;
  for (const auto& comp : kComponents) {
    Check c{std::string("versions.") + comp.key, std::string(comp.title) + " version", CheckStatus::pass, "", "", {}};
    // Rank-level components are compared per rank (LD_LIBRARY_PATH can differ between ranks),
    // node-level ones per node.
    Grouping<int> rank_groups;
    Grouping<std::string> node_groups;
    std::vector<Sample> samples;
    if (comp.per_rank) {
      for (const auto& r : ranks) {
        auto it = r.versions.find(comp.key);
        VersionInfo info = it == r.versions.end() ? VersionInfo{"", "not read"} : it->second;
        rank_groups.add(info.present() ? info.version : "absent", r.rank);
        samples.push_back({"rank " + std::to_string(r.rank), r.host, info});
      }
    } else {
      for (const auto& n : nodes) {
        auto it = n.versions.find(comp.key);
        VersionInfo info = it == n.versions.end() ? VersionInfo{"", "not read"} : it->second;
        node_groups.add(info.present() ? info.version : "absent", n.host);
        samples.push_back({n.host, n.host, info});
      }
    }
    const auto& values = comp.per_rank ? rank_groups.values : node_groups.values;
    auto describe = [&](const std::string& value) {
      return comp.per_rank ? detail::ranks_on_hosts(rank_groups.members[value], hosts) : join(node_groups.members[value], ", ");
    };
    // Where the version came from (or why it is absent), per host, once.
    for (const auto& s : samples) {
      const std::string key = comp.per_rank ? s.host : s.where;
      if (c.details.find(key) == c.details.end()) {
        c.details[key] = (s.info.present() ? s.info.version + " from " : "absent: ") + s.info.source;
      }
    }
    const std::size_t count = comp.per_rank ? ranks.size() : nodes.size();
    const std::string scope = count != 1
                                  ? "on all " + std::to_string(count) + (comp.per_rank ? " ranks" : " nodes")
                                  : (comp.per_rank ? "on rank " + std::to_string(ranks.front().rank) + " (" + ranks.front().host + ")"
                                                   : "on " + nodes.front().host);
    if (values.size() > 1) {
      std::vector<std::string> groups;
      for (const auto& v : values) groups.push_back(v + " on " + describe(v));
      c.status = CheckStatus::fail;
      c.reason = "differs: " + join(groups, "; ");
      c.fix = "install the same " + std::string(comp.title) +
              " on every node (one image or AMI for the whole cluster); mixed versions hang or slow collectives";
    } else if (values.empty() || values.front() == "absent") {
      c.status = CheckStatus::skip;
      c.reason = samples.empty() ? "nothing read" : "absent " + scope + ": " + samples.front().info.source;
    } else {
      const std::string& v = values.front();
      c.reason = v + " " + scope;
      if (std::string(comp.key) == "libfabric" && compare_versions(v, "1.17") < 0) {
        c.status = any_efa ? CheckStatus::fail : CheckStatus::warn;
        c.reason += ", older than 1.17 (the checklist's minimum)";
        c.fix = "use the libfabric of the EFA installer (>= 1.17): /opt/amazon/efa/lib first on LD_LIBRARY_PATH";
      }
      for (const auto& m : kP5Minimums) {
        if (p5 && m.component == std::string(comp.key) && compare_versions(v, m.version) < 0) {
          c.status = CheckStatus::fail;
          c.reason += ", below the p5 minimum " + std::string(m.version);
          c.fix = "p5 needs CUDA >= 12.0, NCCL >= 2.18.5, aws-ofi-nccl >= 1.7.3 and EFA installer >= 1.29.0";
        }
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace meshbench::analysis
