#pragma once
// `meshbench predict`: what a collective should take on a topology, as nccl-tests' table (size,
// count, time, algbw, busbw) from the cost model, with the algorithm and protocol the model
// assumed (docs/mapping.md, "predict"). Pure functions of their arguments; the command
// (src/predict_command.cpp) reads the options and prints.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "mapping/cost_model.hpp"
#include "mapping/layout.hpp"
#include "mapping/ops.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping {

// nccl-tests' sweep (-b, -e, -f): from min to max bytes, times the factor; the one size when
// min == max (the factor is then not used). InputError when min is 0, min > max, or the factor
// is below 2 with min < max.
std::vector<std::uint64_t> predict_sizes(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor);

// An op as nccl-tests or meshbench names it: all_reduce, allreduce, all_reduce_perf (any case).
// InputError listing the ops otherwise.
Op parse_predict_op(std::string_view name);

// The group priced: one dimension of a layout on the topology, placed by slot_of_rank.
struct PredictGroup {
  Layout layout;
  Dim dim = Dim::tp;
  std::vector<int> slot_of_rank;  // logical rank -> slot, one per slot of the topology
  bool isolated = true;           // one group alone (nccl-tests' one communicator), else all at once
  int ranks = 0, nodes = 0, groups = 1;
  std::string description;  // "16 GPUs: all 8 of each of 2 nodes"
};

// Every slot of every node (gpus_per_node 0), or the first K slots of every node: one group,
// priced alone, as a group of the dimension that runs `op` in training (ep for the all-to-alls,
// pp for send_recv, else tp). InputError when K exceeds a node's slots or does not divide them,
// or the nodes differ.
PredictGroup node_group(const topology::ClusterTopology& topology, int gpus_per_node, Op op);
// One dimension of `layout` (its world set to the topology's slots) at the default placement
// (rank r on slot r), all its groups at once as a training step runs them. InputError when
// the layout does not fit or the dimension has groups of one rank.
PredictGroup layout_dim_group(const topology::ClusterTopology& topology, Layout layout, Dim dim);

struct PredictRow {
  std::uint64_t bytes = 0;  // nccl-tests' size: the per-rank buffer
  std::uint64_t count = 0;  // elements of float
  double time_us = 0, algbw_gbps = 0, busbw_gbps = 0;
  std::string algorithm, protocol;  // as CostModel::op_estimate says
};

struct Prediction {
  std::string op, type = "float";
  std::string group;     // the group in words, with its ranks and nodes
  std::string hardware;  // the topology in words
  std::string model;     // the basis: "NCCL 2.28.9 tuning model", "alpha-beta", "calibrated (FILE)"
  int ranks = 0, nodes = 0, groups = 1;
  bool isolated = true;
  std::vector<PredictRow> rows;
};

// What priced an estimate, from CostModel::op_estimate's algorithm: "alpha-beta", "calibrated",
// or "NCCL <kNcclTuningVersion> tuning model" for an algorithm NCCL's tuning model chose.
std::string estimate_basis(std::string_view algorithm);

// The topology in a line: "2 nodes x 8 GPUs (p5.48xlarge), 16 GPUs, 32 NICs at 12.5 GB/s".
std::string hardware_line(const topology::ClusterTopology& topology);

// Prices `op` at each size on `group`'s dimension: time from CostModel::op_estimate, algbw =
// bytes / time, busbw = algbw x the op's bus factor for the group's ranks.
Prediction predict(const CostModel& model, const PredictGroup& group, Op op, const std::vector<std::uint64_t>& sizes,
                   const std::string& calibration_source = "");

// nccl-tests' table, with a header of the group, the hardware and the model.
std::string predict_text(const Prediction& prediction);
// {"schema": "meshbench.predict", "header": {...}, "rows": [{bytes, count, time_us, algbw_gbps,
// busbw_gbps, algorithm, protocol}, ...]}.
nlohmann::ordered_json predict_json(const Prediction& prediction);

}  // namespace meshbench::mapping
