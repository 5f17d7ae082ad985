#include "analysis/report/file_model.hpp"

#include <nlohmann/json.hpp>

#include "analysis/report/ranking.hpp"
#include "common/error.hpp"
#include "topology/json.hpp"

namespace meshbench::analysis {

topology::ClusterTopology topology_of(const results::ResultsFile& file) {
  if (file.topology_json().empty())
    throw InputError(file.path() + " keeps no topology (/topology attr json); it was not written by 'meshbench run'");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(file.topology_json());
  } catch (const nlohmann::json::exception&) {
    throw InputError("the topology kept in " + file.path() + " is not valid JSON; the file is damaged");
  }
  try {
    return topology::cluster_from_json(j);
  } catch (const InputError& e) {
    throw InputError("the topology kept in " + file.path() + " cannot be read: " + e.what());
  }
}

mapping::FlatParallelGroups flat_groups_of(const results::MappingRecord& m, int world) {
  mapping::FlatParallelGroups out;
  for (const auto& [name, groups] : m.groups) {
    const auto dim = mapping::parse_dim(name);
    if (!dim || groups.empty()) continue;
    mapping::FlatGroups flat;
    flat.size = static_cast<int>(groups.front().size());
    flat.group_of_rank.assign(static_cast<std::size_t>(world), -1);
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (const int r : groups[g]) {
        flat.ranks.push_back(r);
        if (r >= 0 && r < world) flat.group_of_rank[static_cast<std::size_t>(r)] = static_cast<int>(g);
      }
    }
    if (*dim == mapping::Dim::dp) out.dp_cp = flat;
    out.by_dim[static_cast<std::size_t>(*dim)] = std::move(flat);
  }
  return out;
}

FileScores::FileScores(const mapping::CostModel& model, const results::ResultsFile& file) {
  for (const auto& m : file.mappings()) {
    const mapping::Layout layout = layout_of(file, m.name);
    if (static_cast<int>(m.slot_of_rank.size()) != model.slot_count()) {
      throw InputError("mapping '" + m.name + "' in " + file.path() + " places " + std::to_string(m.slot_of_rank.size()) +
                       " ranks on a topology of " + std::to_string(model.slot_count()) + " slots; the file is damaged");
    }
    scores_.emplace(m.name, model.score(layout, flat_groups_of(m, layout.world), m.slot_of_rank));
  }
}

const mapping::Score* FileScores::find(const std::string& mapping) const {
  const auto it = scores_.find(mapping);
  return it == scores_.end() ? nullptr : &it->second;
}

}  // namespace meshbench::analysis
