#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mapping/cost_params.hpp"
#include "mapping/layout.hpp"
#include "mapping/nccl_tuning.hpp"
#include "mapping/ops.hpp"
#include "mapping/rank_groups.hpp"
#include "mapping/workload.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping {

// One group's cost for an op of `bytes`: steps(op, n)·alpha_us + bytes·factor(op, n)·us_per_byte
// (ring and send/recv, with nccl-tests' bus factor) or (n-1)·alpha_us + bytes·us_per_byte
// (all-to-all, where the coefficient already holds the shares that leave each node).
struct Profile {
  double alpha_us = 0;
  double us_per_byte = 0;
};

// How one dimension's groups sit on the cluster under one placement, and what they cost.
struct DimShape {
  int group_size = 1;
  int groups = 0;
  bool crosses_nodes = false;
  int max_nodes_per_group = 1;  // the widest group's node count
  int max_nic_flows = 0;        // the most concurrent flows (groups or pairs) through one NIC
  int max_uplink_flows = 0;     // the most concurrent flows through one PCIe switch uplink
  topology::LinkClass worst_link = topology::LinkClass::LOC;
  // The line rate the calibration scales its fitted bandwidth by (0 where no group has one):
  // alone, the slowest link one of the groups crosses; shared, the link (NIC or in-node path)
  // that gives one flow the least once the dimension's flows divide it, with those flows. On
  // identical NICs the shared one is the NIC with the most flows; with one slow node's NIC it
  // may be that NIC with fewer.
  double line_gbps = 0;
  double shared_line_gbps = 0;
  int shared_line_flows = 0;
  // Pareto front of the groups' profiles: a dimension is as slow as its slowest group.
  std::vector<Profile> ring, all_to_all, send_recv;
  // GPU groups, as NCCL's tuning model sees them: the distinct communicators of the dimension's
  // groups, with the network devices shared as all groups share them (`gpu_shared`) and alone
  // (`gpu_alone`); pairs of neighbouring stages for send/recv. Empty for CPU slots, and when
  // CostParams::nccl_tuning is false (the α-β profiles price the GPU groups then).
  // Each with NCCL's tables for it (nccl::Tuned), computed once here for every size priced.
  std::vector<nccl::Tuned> gpu_shared, gpu_alone, gpu_pairs;
};

// What a calibration is indexed by for a dimension of this shape: NET when its groups cross
// nodes, else the slowest class inside a node; and the flows sharing its bottleneck (the NIC for
// NET, the switch uplink for PIX/PXB/PHB, else 1), 1 when isolated. The fit (analysis/calibrate)
// and the model read points through these same two functions.
topology::LinkClass calibration_link(const DimShape& shape);
int calibration_flows(const DimShape& shape, bool isolated);
// The line rate (GB/s) of the link those flows share, or of the slowest link a group crosses
// when isolated; 0 where the shape has none (the calibration's bandwidth is then used as fitted).
double calibration_line_gbps(const DimShape& shape, bool isolated);

// How the model priced one op. GPU groups are priced as NCCL's tuning model would run them
// (mapping/nccl_tuning.hpp): the algorithm and protocol it picks; a calibrated time says
// "calibrated"; the α-β profiles (CPU slots, MPI) say "alpha-beta".
struct OpEstimate {
  double time_us = 0;
  std::string algorithm;  // "ring", "tree", "nvls", "nvls_tree", "pat", "direct", "calibrated", "alpha-beta"
  std::string protocol;   // "LL", "LL128", "Simple"; empty where the model has no protocol
};

struct Score {
  std::array<double, kAllDims.size()> dim_us{};  // per step with a workload, else summed over the sweep
  std::array<DimShape, kAllDims.size()> shape{};
  double total_us = 0;
  double operator[](Dim d) const { return dim_us[static_cast<std::size_t>(d)]; }
  const DimShape& of(Dim d) const { return shape[static_cast<std::size_t>(d)]; }
};

// Working memory of one scoring: per-NIC-class, per-switch and per-node flow counts and the
// groups' sorted members. A model only reads itself while scoring, so threads may score on one
// model at once, each with a scratch of its own. Reusing one scratch across calls saves the
// allocations; it fits itself to whichever model it is handed.
class CostScratch {
 public:
  CostScratch();
  ~CostScratch();
  CostScratch(CostScratch&&) noexcept;
  CostScratch& operator=(CostScratch&&) noexcept;

  // Its contents (private to the implementation; made again after a move).
  struct Buffers;
  Buffers& buffers();

 private:
  std::unique_ptr<Buffers> buffers_;
};

// The α-β model with NIC and PCIe-uplink contention (docs/mapping.md, "Cost model").
// Built once per topology; scores any placement of any layout on it.
class CostModel {
 public:
  CostModel(const topology::ClusterTopology& topology, CostParams params, std::optional<Workload> workload = std::nullopt);
  ~CostModel();
  CostModel(CostModel&&) noexcept;
  CostModel& operator=(CostModel&&) noexcept;

  const CostParams& params() const { return params_; }
  const std::optional<Workload>& workload() const { return workload_; }
  int slot_count() const;

  // The shapes and times of every dimension of `groups` placed by `slot_of_rank`, computed in
  // `scratch`.
  // `node_symmetric` promises that the nodes are alike and that every node holds the same set of
  // local slot sets of each dimension's groups, each group with the same set on all its nodes
  // (true of block placements whose inner blocks fill a node exactly): ring and all-to-all
  // pricing then looks at node 0 alone, in time independent of the world size. A promise that
  // does not hold is detected where it would change the result and the full pass runs instead.
  Score score(const Layout& layout, const FlatParallelGroups& groups, std::span<const int> slot_of_rank, CostScratch& scratch,
              bool node_symmetric = false) const;
  // The same with a scratch of its own, for a one-off score.
  Score score(const Layout& layout, const FlatParallelGroups& groups, std::span<const int> slot_of_rank, bool node_symmetric = false) const;
  // One op on a dimension of that shape, all its groups at once or (`isolated`) one group alone.
  // With a calibration (CostParams::calibration) that fits the shape's link class and the op's
  // family, the calibrated time; otherwise the α-β profiles.
  double op_time_us(const DimShape& shape, Op op, std::uint64_t bytes, bool isolated = false) const;
  // The same time, with how it was priced.
  OpEstimate op_estimate(const DimShape& shape, Op op, std::uint64_t bytes, bool isolated = false) const;
  // The op list a dimension is charged for: one step of the workload, or typical_ops × the sweep
  // (run's in-process plan: the sizes it measures; plan always has a workload, its default one).
  std::vector<OpTraffic> traffic(const Layout& layout) const;

  // The model's view of the topology (private to the implementation).
  struct Fabric;

 private:
  CostParams params_;
  std::optional<Workload> workload_;
  std::unique_ptr<Fabric> fabric_;
};

}  // namespace meshbench::mapping
