#pragma once
// How to launch training with a measured mapping: the Megatron order and arguments, an Open MPI
// rankfile, a SLURM_HOSTFILE for `srun --distribution=arbitrary`, and the per-node
// CUDA_VISIBLE_DEVICES order. Built from what the results file stores (layout, groups,
// slot_of_rank, nodes), so a report can say it long after the plan is gone.
#include <string>
#include <utility>
#include <vector>

#include "results/reader.hpp"

namespace meshbench::analysis {

struct ApplyHint {
  std::string mapping;
  // An order whose default placement (rank r on slot r, as srun's block distribution and
  // mpirun --map-by slot give) yields exactly this mapping's groups: Megatron's arguments are
  // then all it takes. Empty when the placement is not a pure order.
  std::string pure_order;
  // The order whose Megatron-Core rank groups equal the stored logical groups (the order to
  // give Megatron when launching with the rankfile or hostfile). Empty when none does.
  std::string logical_order;
  std::vector<std::string> megatron_args;   // sizes, and the order flag where one exists
  std::string megatron_order_note;          // how to set the order where no flag exists
  std::vector<std::string> rankfile;        // Open MPI: "rank R=HOST slot=LOCAL"
  std::vector<std::string> slurm_hostfile;  // line r: rank r's host
  std::vector<std::pair<std::string, std::string>> cuda_visible_devices;  // host -> order of its local slots
  bool gpu_slots = false;                   // CUDA_VISIBLE_DEVICES only means something for GPUs
  bool needs_placement() const { return pure_order.empty(); }
};

// InputError when `mapping` is not in the file.
ApplyHint apply_hint(const results::ResultsFile& file, const std::string& mapping);

// Writes rankfile, slurm_hostfile, cuda_visible_devices and megatron_args.txt into `dir`
// (created if missing; each file written beside its name and renamed into place). Returns the
// paths written. InputError when `dir` cannot be created or written.
std::vector<std::string> export_apply_hint(const ApplyHint& hint, const std::string& dir);

}  // namespace meshbench::analysis
