#include "mapping/exports.hpp"

#include <filesystem>
#include <map>

#include "common/error.hpp"

namespace meshbench::mapping {

namespace {

// Logical ranks per node, in increasing rank order: the order in which launchers number the
// local ranks of a node.
std::vector<std::vector<int>> ranks_by_node(const PlanTopology& t, const Mapping& m) {
  std::vector<std::vector<int>> out(t.hostnames.size());
  for (std::size_t r = 0; r < m.slot_of_rank.size(); ++r)
    out[static_cast<std::size_t>(t.node_of(m.slot_of_rank[r]))].push_back(static_cast<int>(r));
  return out;
}

bool same_as_order(const Plan& p, const PlannedMapping& m, const std::string& order) {
  Layout l = p.layout;
  l.order = order;
  try {
    validate(l);
  } catch (const InputError&) {
    return false;
  }
  std::vector<int> identity(static_cast<std::size_t>(l.world));
  for (int r = 0; r < l.world; ++r) identity[static_cast<std::size_t>(r)] = r;
  return structure_digest(flat_rank_groups(l), identity) == m.digest;
}

}  // namespace

std::string openmpi_rankfile(const PlanTopology& t, const Mapping& m) {
  std::string out;
  std::map<std::pair<int, int>, int> next_core;  // (node, numa) -> next core index
  for (std::size_t r = 0; r < m.slot_of_rank.size(); ++r) {
    const int slot = m.slot_of_rank[r];
    const int node = t.node_of(slot), local = t.local_index(slot);
    const int numa = t.numa[static_cast<std::size_t>(node)][static_cast<std::size_t>(local)];
    out += "rank " + std::to_string(r) + "=" + t.hostnames[static_cast<std::size_t>(node)] + " slot=";
    out += numa >= 0 ? std::to_string(numa) + ":" + std::to_string(next_core[{node, numa}]++) : std::to_string(next_core[{node, -1}]++);
    out += "\n";
  }
  return out;
}

std::string slurm_hostfile(const PlanTopology& t, const Mapping& m) {
  std::string out;
  for (int slot : m.slot_of_rank) out += t.hostnames[static_cast<std::size_t>(t.node_of(slot))] + "\n";
  return out;
}

std::vector<std::string> cuda_visible_devices(const PlanTopology& t, const Mapping& m) {
  std::vector<std::string> out;
  const auto by_node = ranks_by_node(t, m);
  for (std::size_t n = 0; n < by_node.size(); ++n) {
    std::string devices;
    for (int r : by_node[n]) {
      const int local = t.local_index(m.slot_of_rank[static_cast<std::size_t>(r)]);
      devices += (devices.empty() ? "" : ",") + std::to_string(t.gpu_index[n][static_cast<std::size_t>(local)]);
    }
    out.push_back(devices);
  }
  return out;
}

std::string megatron_arguments(const Plan& p, const PlannedMapping& pm) {
  const Layout& l = pm.mapping.layout;
  std::string out = "# meshbench plan export: mapping " + pm.mapping.name + " (rank " + std::to_string(pm.rank) + " of " +
                    std::to_string(p.mappings.size()) + ")\n";
  const bool default_order = same_as_order(p, pm, kDefaultOrder);
  const bool tp_pp_dp = !default_order && same_as_order(p, pm, "tp-cp-ep-pp-dp");
  const bool pure = pm.mapping.identity_placement() || default_order || tp_pp_dp;
  if (pure) {
    out += "# A pure Megatron order: launch the ranks in slot order (node by node, GPU 0 first); no rankfile needed.\n";
  } else {
    out +=
        "# Not a pure order: launch with the rankfile (mpirun --rankfile rankfile) or SLURM_HOSTFILE=slurm_hostfile\n"
        "# (srun --distribution=arbitrary), set each node's CUDA_VISIBLE_DEVICES from cuda_visible_devices.sh, and\n"
        "# pick the GPU by local rank; Megatron then numbers ranks with the order below.\n";
  }
  out += "--tensor-model-parallel-size " + std::to_string(l.tp) + " --context-parallel-size " + std::to_string(l.cp) +
         " --pipeline-model-parallel-size " + std::to_string(l.pp) + " --expert-model-parallel-size " + std::to_string(l.ep) +
         " --expert-tensor-parallel-size " + std::to_string(l.expert_tp());
  // The order Megatron must number ranks with: one of the two its command line offers when the
  // mapping has that structure, else the mapping's own.
  const std::string order = default_order ? kDefaultOrder : tp_pp_dp ? "tp-cp-ep-pp-dp" : l.order;
  if (order == kDefaultOrder) {
    out += "\n# order: " + order + " (Megatron's default; no flag needed)\n";
  } else if (order == "tp-cp-ep-pp-dp") {
    out += " --use-tp-pp-dp-mapping\n# order: tp-cp-ep-pp-dp (what --use-tp-pp-dp-mapping selects)\n";
  } else {
    out += "\n# order: " + order +
           " -- Megatron's command line offers only tp-cp-ep-dp-pp (default) and tp-cp-ep-pp-dp\n"
           "# (--use-tp-pp-dp-mapping): pass order=\"" +
           order + "\" to megatron.core.parallel_state.initialize_model_parallel.\n";
  }
  return out;
}

std::vector<std::string> export_mapping(const Plan& p, const PlannedMapping& pm, const std::string& dir, bool force) {
  namespace fs = std::filesystem;
  std::vector<std::pair<std::string, std::string>> files = {
      {"rankfile", openmpi_rankfile(p.topology, pm.mapping)},
      {"slurm_hostfile", slurm_hostfile(p.topology, pm.mapping)},
      {"megatron_args.txt", megatron_arguments(p, pm)},
  };
  if (p.topology.slot_kind == "gpu") {
    const auto devices = cuda_visible_devices(p.topology, pm.mapping);
    std::string table, script =
                           "# Source on each node before starting the ranks: local rank i (ranks on a node numbered by increasing\n"
                           "# global rank) then uses device i of CUDA_VISIBLE_DEVICES, the GPU mapping " +
                           pm.mapping.name +
                           " gives it.\n"
                           "case \"$(hostname)\" in\n";
    for (std::size_t n = 0; n < devices.size(); ++n) {
      const std::string& host = p.topology.hostnames[n];
      table += host + " " + devices[n] + "\n";
      script += "  " + host + "|" + host + ".*) export CUDA_VISIBLE_DEVICES=" + devices[n] + " ;;\n";
    }
    script += "  *) echo \"cuda_visible_devices.sh: $(hostname) is not a host of this mapping\" >&2 ;;\nesac\n";
    files.emplace_back("cuda_visible_devices.txt", table);
    files.emplace_back("cuda_visible_devices.sh", script);
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) throw InputError("cannot create export folder '" + dir + "'; check the path");
  for (const auto& [name, text] : files) {
    const auto path = (fs::path(dir) / name).string();
    if (fs::exists(path) && !force) throw InputError("'" + path + "' exists; pass --force to overwrite the export");
  }
  std::vector<std::string> written;
  for (const auto& [name, text] : files) {
    written.push_back((fs::path(dir) / name).string());
    write_output_file(written.back(), text, true);
  }
  return written;
}

}  // namespace meshbench::mapping
