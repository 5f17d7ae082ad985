#include "analysis/report_apply.hpp"

#include <filesystem>
#include <fstream>
#include <map>

#include "analysis/curves.hpp"
#include "analysis/ranking.hpp"
#include "common/error.hpp"
#include "mapping/candidates.hpp"
#include "mapping/rank_groups.hpp"
#include "topology/json.hpp"

namespace meshbench::analysis {

namespace {

namespace fs = std::filesystem;
using Groups = std::vector<std::vector<int>>;

std::map<std::string, Groups> stored_groups(const results::MappingRecord& m, bool as_slots) {
  std::map<std::string, Groups> out;
  for (const auto& [dim, groups] : m.groups) {
    Groups g = groups;
    if (as_slots) {
      for (auto& group : g) {
        for (int& r : group) {
          if (r >= 0 && static_cast<std::size_t>(r) < m.slot_of_rank.size()) r = m.slot_of_rank[static_cast<std::size_t>(r)];
        }
      }
    }
    out[dim] = canonical(std::move(g));
  }
  return out;
}

bool groups_match(const mapping::ParallelGroups& generated, const std::map<std::string, Groups>& stored) {
  for (const auto d : mapping::kAllDims) {
    const auto it = stored.find(std::string(mapping::to_string(d)));
    if (it == stored.end()) continue;
    if (canonical(generated[d]) != it->second) return false;
  }
  return true;
}

bool any_gpu_slot(const std::string& topology_json) {
  try {
    const auto cluster = topology::cluster_from_json(nlohmann::json::parse(topology_json));
    for (int i = 0; i < cluster.layout_count(); ++i) {
      for (const auto& s : cluster.layout(i).slots) {
        if (s.kind == topology::SlotKind::gpu) return true;
      }
    }
  } catch (const std::exception&) {
    // A file without a readable topology: no CUDA_VISIBLE_DEVICES advice.
  }
  return false;
}

std::vector<std::string> megatron_sizes(const results::LayoutRecord& l) {
  std::vector<std::string> args = {"--tensor-model-parallel-size " + std::to_string(l.tp),
                                   "--pipeline-model-parallel-size " + std::to_string(l.pp)};
  if (l.cp > 1) args.push_back("--context-parallel-size " + std::to_string(l.cp));
  if (l.ep > 1) {
    args.push_back("--expert-model-parallel-size " + std::to_string(l.ep));
    args.push_back("--expert-tensor-parallel-size " + std::to_string(l.etp));
    if (l.tp > 1) args.push_back("--sequence-parallel");  // Megatron requires it with EP and TP
  }
  return args;
}

void write_lines(const fs::path& path, const std::vector<std::string>& lines) {
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp);
    for (const auto& l : lines) out << l << "\n";
    if (!out) throw InputError("cannot write " + tmp.string() + "; choose a writable --export folder");
  }
  fs::rename(tmp, path);
}

}  // namespace

ApplyHint apply_hint(const results::ResultsFile& file, const std::string& name) {
  const auto* m = file.find_mapping(name);
  if (m == nullptr) throw InputError("mapping '" + name + "' is not in " + file.path());
  ApplyHint h;
  h.mapping = name;
  const auto logical = stored_groups(*m, false);
  const auto slots = stored_groups(*m, true);
  mapping::Layout layout = layout_of(file);
  std::vector<std::string> orders;
  try {
    orders = mapping::valid_orders(layout);
  } catch (const InputError&) {
  }
  for (const auto& order : orders) {
    layout.order = order;
    mapping::ParallelGroups generated;
    try {
      generated = mapping::rank_groups(layout);
    } catch (const InputError&) {
      continue;
    }
    if (h.pure_order.empty() && groups_match(generated, slots)) h.pure_order = order;
    if (h.logical_order.empty() && groups_match(generated, logical)) h.logical_order = order;
  }
  const std::string& order = h.pure_order.empty() ? h.logical_order : h.pure_order;
  h.megatron_args = megatron_sizes(file.layout());
  if (order == "tp-cp-ep-pp-dp") {
    h.megatron_args.push_back("--use-tp-pp-dp-mapping");
  } else if (!order.empty() && order != mapping::kDefaultOrder) {
    h.megatron_order_note = "Megatron-LM has no flag for order " + order + ": pass order=\"" + order +
                            "\" to megatron.core.parallel_state.initialize_model_parallel";
  } else if (order.empty()) {
    h.megatron_order_note = "no Megatron-Core order yields these groups: use the groups from the results file";
  }

  std::map<std::string, std::vector<std::string>> local_slots;  // host -> local slot of each of its ranks, in rank order
  std::vector<std::string> host_order;
  for (std::size_t r = 0; r < m->slot_of_rank.size(); ++r) {
    const int slot = m->slot_of_rank[r];
    std::string host = "?";
    int local = slot;
    for (const auto& n : file.nodes()) {
      if (slot >= n.first_slot && slot < n.first_slot + n.slot_count) {
        host = n.hostname;
        local = slot - n.first_slot;
      }
    }
    h.rankfile.push_back("rank " + std::to_string(r) + "=" + host + " slot=" + std::to_string(local));
    h.slurm_hostfile.push_back(host);
    if (local_slots.count(host) == 0) host_order.push_back(host);
    local_slots[host].push_back(std::to_string(local));
  }
  for (const auto& host : host_order) {
    std::string cvd;
    for (const auto& s : local_slots[host]) cvd += (cvd.empty() ? "" : ",") + s;
    h.cuda_visible_devices.emplace_back(host, cvd);
  }
  h.gpu_slots = any_gpu_slot(file.topology_json());
  return h;
}

std::vector<std::string> export_apply_hint(const ApplyHint& h, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) throw InputError("cannot create --export folder " + dir + ": " + ec.message());
  const fs::path base(dir);
  std::vector<std::string> written;
  auto put = [&](const char* name, const std::vector<std::string>& lines) {
    write_lines(base / name, lines);
    written.push_back((base / name).string());
  };
  put("rankfile", h.rankfile);
  put("slurm_hostfile", h.slurm_hostfile);
  std::vector<std::string> cvd;
  for (const auto& [host, order] : h.cuda_visible_devices) cvd.push_back(host + " CUDA_VISIBLE_DEVICES=" + order);
  put("cuda_visible_devices", cvd);
  std::vector<std::string> megatron;
  std::string args;
  for (const auto& a : h.megatron_args) args += (args.empty() ? "" : " ") + a;
  megatron.push_back(args);
  if (!h.megatron_order_note.empty()) megatron.push_back("# " + h.megatron_order_note);
  megatron.push_back(h.needs_placement() ? "# launch with the rankfile (mpirun -rf) or SLURM_HOSTFILE (srun --distribution=arbitrary)"
                                         : "# the default placement (rank r on slot r) gives this mapping: no rankfile needed");
  put("megatron_args.txt", megatron);
  return written;
}

}  // namespace meshbench::analysis
