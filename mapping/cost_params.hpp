#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/routing_skew.hpp"
#include "mapping/calibration.hpp"
#include "mapping/nccl_tuning.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping {

// Hockney parameters of one link class: a per-step latency and the bandwidth one rank's
// traffic gets on such a path (busbw, GB/s). For NET the bandwidth is per NIC: a NIC gives
// min(its line rate, this) — so calibrating NET lowers every NIC at once.
struct LinkCost {
  double alpha_us = 0;
  double bandwidth_gbps = 0;
  bool operator==(const LinkCost&) const = default;
};

// The cost model's parameters, as data (docs/mapping.md, "Cost model"): defaults derived from
// the topology's bandwidths, overridable from a JSON file so that measurements can calibrate them.
struct CostParams {
  std::array<LinkCost, topology::kLinkClassCount> links{};
  // All groups of a dimension run at once and share NICs and PCIe switch uplinks.
  bool contention = true;
  // all_to_allv: the routing skew (common/routing_skew.hpp: the Zipf exponent over a group's
  // ranks); the busiest rank receives routing_imbalance(group size, skew) times the mean.
  double a2av_skew = kDefaultRoutingSkew;
  // Sizes (nccl-tests convention) summed per op by a model without a workload: run's in-process
  // plan sets them to the sizes it measures. `plan` always ranks by a workload (its default,
  // mapping/workload.hpp, when none is given).
  std::vector<std::uint64_t> sweep_bytes = {1ULL << 20, 16ULL << 20, 256ULL << 20};
  // A fitted model (`--cost-model cost.json` from `meshbench calibrate`): where it covers a
  // shape's link class and op family it replaces the α-β profiles above.
  std::optional<Calibration> calibration;
  // The NCCL release GPU groups are priced for (major×10000 + minor×100 + patch): which
  // algorithms exist (mapping/nccl_tuning.hpp). An imported log states its own.
  int nccl_version = 22809;
  // NCCL_ALGO / NCCL_PROTO of the run priced: the algorithms and protocols NCCL may choose among
  // (all by default). The report sets them from a file's recorded environment.
  nccl::Allowed nccl_allowed{};
  // GPU groups are priced as NCCL runs them (mapping/nccl_tuning.hpp); false prices them with the
  // α-β profiles above, as CPU slots always are.
  bool nccl_tuning = true;

  LinkCost& operator[](topology::LinkClass c) { return links[static_cast<std::size_t>(c)]; }
  const LinkCost& operator[](topology::LinkClass c) const { return links[static_cast<std::size_t>(c)]; }
  bool operator==(const CostParams&) const = default;
};

// Defaults: each intra-node class's bandwidth is the mean of the topology's bandwidth over the
// slot pairs of that class (a fixed fallback for classes the topology lacks); NET is the fastest
// NIC's line rate; latencies are order-of-magnitude per-step values (NVLink ~1 us, PCIe a few us,
// network ~8 us) until measurements calibrate them.
CostParams default_cost_params(const topology::ClusterTopology& topology);

// Applies {"contention": bool, "a2av_skew": s, "sweep_bytes": [n, ...],
// "links": {"NVL": {"alpha_us": a, "bandwidth_gbps": b}, ...}, "calibration": {...} or null};
// keys left out keep their value ("calibration" is how a plan file carries the calibration it
// was planned with). InputError naming `where` and the key on anything else.
void apply_cost_overrides(CostParams& params, const nlohmann::json& overrides, const std::string& where);
// Reads a JSON file of overrides onto `base`, or a calibration file (is_calibration_json) into
// `base.calibration`; the caller checks the calibration's topology (check_calibration_topology).
CostParams load_cost_params(const std::string& path, CostParams base);
nlohmann::json to_json(const CostParams& params);

}  // namespace meshbench::mapping
