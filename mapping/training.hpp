#pragma once
// What explore needs beyond the model's sizes and the parallel sizes: how the training job runs
// (precision, optimizer, recompute, schedule) and how a layout's layers fall on pipeline stages.
// Pure functions; docs/explore.md has every formula.
#include <optional>
#include <string>
#include <vector>

#include "common/routing_skew.hpp"
#include "mapping/layout.hpp"
#include "mapping/workload.hpp"

namespace meshbench::mapping {

inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

enum class Recompute { none, selective, full };
std::string to_string(Recompute recompute);
// InputError for anything but none|selective|full.
Recompute parse_recompute(const std::string& name);

// The training job's settings. Defaults follow Megatron-Core's published MoE recipes (docs/explore.md).
struct TrainingSettings {
  int micro_batch = 1;
  int global_batch = 1024;                 // sequences per step
  bool distributed_optimizer = true;       // optimizer state sharded over DP×CP (dense) and EDP (experts)
  bool precision_aware_optimizer = false;  // Adam moments in bf16 (4 bytes per parameter instead of 8)
  bool sequence_parallel = true;           // with TP > 1
  Recompute recompute = Recompute::selective;
  std::string precision = "bf16";             // the GEMMs' precision: bf16 | fp8 (compute peak only)
  double compute_efficiency = 0.5;            // achieved / dense peak while computing
  double routing_skew = kDefaultRoutingSkew;  // common/routing_skew.hpp: the Zipf exponent over an EP group's ranks
  bool ep_overlap = false;                    // EP all-to-all overlapped with another micro-batch's compute
  double comm_overlap = 0;                    // share of the otherwise exposed communication hidden behind compute (fitted by --measured)
  double allowance_gib = 3.0;                 // CUDA context, NCCL and library workspaces
  double fragmentation = 0.10;                // of the activations: the caching allocator's unused blocks
};

// The workload as the cost model prices it: the model with the job's batch, sequence parallelism
// and optimizer sharding, so that the cost model prices the same step explore estimates.
Workload workload_for_step(Workload w, const TrainingSettings& s);

// A candidate layout: Layout plus the virtual pipeline stages per rank.
struct ExploreLayout {
  Layout layout;
  int vpp = 1;
};

// Layers on each pipeline stage (summed over its virtual chunks) and each chunk's layer count in
// model order (chunk j sits on stage j % pp): an even split, or Megatron's uneven one (first and
// last chunks lighter, `--decoder-first/last-pipeline-num-layers`). nullopt when neither works.
struct StageSplit {
  std::vector<int> chunk_layers;  // pp × vpp entries, model order
  std::vector<int> stage_layers;  // pp entries
  bool even = true;
  int first_chunk() const { return chunk_layers.front(); }
  int last_chunk() const { return chunk_layers.back(); }
  // The model's layer indices on each stage, in model order.
  std::vector<std::vector<int>> layers_by_stage() const;
};
std::optional<StageSplit> split_layers(int layers, int pp, int vpp);

// Layer i is an MoE layer when it is among the last moe_layer_count() (DeepSeek's dense first
// layers come first).
bool is_moe_layer(const Workload& workload, int layer);

// One pipeline stage's memory per GPU, bytes.
struct StageMemory {
  int stage = 0;
  int layers = 0;
  double weights = 0, gradients = 0, optimizer = 0;
  double activations = 0;  // the micro-batches the schedule keeps in flight on this stage
  double allowance = 0;    // fixed allowance + fragmentation
  double parameters = 0;   // parameters held by one GPU of this stage
  double total() const { return weights + gradients + optimizer + activations + allowance; }
};

// Per GPU: the least-loaded stage, the median stage, and the most-loaded stage with the routed
// tokens of its MoE layers raised by the routing imbalance (the guide's minimum / typical / maximum).
struct MemoryEstimate {
  std::vector<StageMemory> stages;  // without routing skew
  StageMemory minimum, typical, maximum;
};

// Memory of a layout; `split` from split_layers for the same pp and vpp.
MemoryEstimate estimate_memory(const Workload& workload, const ExploreLayout& layout, const StageSplit& split,
                               const TrainingSettings& settings);

// Activation bytes of one layer for one micro-batch on one GPU (exposed for tests).
double layer_activation_bytes(const Workload& workload, const Layout& layout, const TrainingSettings& settings, bool moe_layer,
                              double routed_factor);

// Forward FLOPs of one layer for one token (model FLOPs, before recompute).
double layer_forward_flops(const Workload& workload, bool moe_layer);

}  // namespace meshbench::mapping
