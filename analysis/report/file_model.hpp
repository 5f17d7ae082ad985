#pragma once
// The cost model's view of a results file: the topology the run measured on, and each stored
// mapping's groups as the model takes them. The report's accuracy section and the fit from
// results files (analysis/calibrate) both read a row's shape through these.
#include <map>
#include <string>

#include "mapping/cost_model.hpp"
#include "results/reader.hpp"
#include "topology/cluster.hpp"

namespace meshbench::analysis {

// The topology the run measured on (/topology attr json); InputError naming the file when it
// cannot be read back.
topology::ClusterTopology topology_of(const results::ResultsFile& file);

// A mapping's stored groups (/mappings/M<i>/groups) in the model's flat form. The stored dp
// groups are the ones the run measured (Megatron's dp-cp group when CP > 1), which is what the
// model prices for dp.
mapping::FlatParallelGroups flat_groups_of(const results::MappingRecord& mapping, int world);

// Every mapping of the file scored once on `model`: each dimension's shape (how its groups sit
// on the topology) and, with a workload model, its time per step. InputError when a mapping's
// placement does not fit the topology.
class FileScores {
 public:
  FileScores(const mapping::CostModel& model, const results::ResultsFile& file);
  // nullptr for a mapping the file does not hold.
  const mapping::Score* find(const std::string& mapping) const;

 private:
  std::map<std::string, mapping::Score> scores_;
};

}  // namespace meshbench::analysis
