#pragma once
// How to launch training with a measured mapping: the Megatron arguments and order, an Open MPI
// rankfile, a SLURM_HOSTFILE for `srun --distribution=arbitrary`, and the per-node
// CUDA_VISIBLE_DEVICES order — written by the mapping module's exports (mapping/exports.hpp)
// from the plan the results file keeps (/plan_json), or from a plan rebuilt out of what the file
// stores (layout, groups, slot_of_rank, topology) when it keeps none.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mapping/plan.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

struct ApplyHint {
  std::string mapping;
  std::string plan_source;  // "the plan kept in the results file" or "rebuilt from the results file"
  // An order whose default placement (rank r on slot r, as srun's block distribution and
  // mpirun --map-by slot give) yields exactly this mapping's groups; empty when none does and
  // the rankfile or hostfile is needed.
  std::string pure_order;
  std::string megatron;                                                   // mapping::megatron_arguments: arguments, order and how to set it
  std::vector<std::string> rankfile;                                      // Open MPI, one line per rank
  std::vector<std::string> slurm_hostfile;                                // line r: rank r's host
  std::vector<std::pair<std::string, std::string>> cuda_visible_devices;  // host -> devices (GPU slots only)
  bool needs_placement() const { return pure_order.empty(); }
};

// The results file's plan: the kept one, or one rebuilt from the file (each mapping's logical
// order found among Megatron's valid orders, ranks from `measured_rank` when given).
struct FilePlan {
  mapping::Plan plan;  // with several layouts: the first layout's, holding every layout's mappings
  std::string source;
  std::vector<mapping::Plan> layouts;  // a plan of several layouts: each layout's own; else empty
  // The plan of the layout `mapping` belongs to (`plan` when there is one layout).
  const mapping::Plan& of_mapping(const std::string& mapping) const;
};
FilePlan plan_of(const results::ResultsFile& file);

// InputError when `mapping` is not in the file.
ApplyHint apply_hint(const results::ResultsFile& file, const FilePlan& plan, const std::string& mapping);

// mapping::export_mapping for `mapping` into `dir` (rankfile, slurm_hostfile, megatron_args.txt,
// cuda_visible_devices.txt/.sh for GPU slots); refuses existing files unless `force`.
std::vector<std::string> export_apply_files(const FilePlan& plan, const std::string& mapping, const std::string& dir, bool force);

}  // namespace meshbench::analysis
