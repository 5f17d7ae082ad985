#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/ops/op.hpp"
#include "topology/cluster.hpp"

namespace meshbench::mapping {

// A fitted cost model (docs/mapping.md, "Calibration"): per link class and op family, α and β
// per size segment, fitted on relative (log) error; and how bandwidth shares when k flows
// cross one NIC or one PCIe switch uplink at once. Pure data and pure functions: measuring
// (bench) and reading results files (analysis/calibrate) happen elsewhere.

inline constexpr int kCalibrationVersion = 1;

// How well one parameter set explains the points it was fitted on.
struct FitQuality {
  int points = 0;
  double median_rel_error = 0;  // |predicted − measured| / measured
  double p90_rel_error = 0;
  double rms_log_residual = 0;  // sqrt(mean(ln(predicted / measured)²))
  bool operator==(const FitQuality&) const = default;
};

// One size range [min_bytes, next segment's min_bytes) of one (link class, family):
// t = steps(op, n)·alpha_us + bytes·factor(op, n) / (bandwidth_gbps·1e3) · sharing(k).
struct SizeSegment {
  std::uint64_t min_bytes = 0;
  double alpha_us = 0;
  double bandwidth_gbps = 0;
  FitQuality quality;
  bool operator==(const SizeSegment&) const = default;
};

struct LinkFit {
  topology::LinkClass link = topology::LinkClass::NET;
  ops::Family family = ops::Family::ring_all_reduce;
  std::vector<SizeSegment> segments;  // sorted by min_bytes, the first at 0
  // The line rate (GB/s) the segments' bandwidths hold at: the median of the fitted points'
  // line rates. A link of another line rate gets the bandwidth scaled by its rate over this one
  // (one node's slower NIC is slower in the prediction too). 0: the points named no line rate,
  // and the bandwidths hold for every link of the class.
  double line_gbps = 0;
  bool operator==(const LinkFit&) const = default;
};

// sharing(k) = k^exponent for the most flows k on one NIC (NET) or one switch uplink (PIX, PXB,
// PHB): 1 is a fair share, 0 no sharing. Fitted from concurrent against isolated points; absent
// (nullopt) when the points could not determine it.
struct SharingFit {
  std::optional<double> nic_exponent;
  FitQuality nic_quality;
  std::optional<double> uplink_exponent;
  FitQuality uplink_quality;
  bool operator==(const SharingFit&) const = default;
};

struct Calibration {
  int version = kCalibrationVersion;
  std::string topology_digest;                  // calibration_digest() of the topology it was measured on
  std::string topology_summary;                 // calibration_summary() of it, for messages
  std::map<std::string, std::string> versions;  // meshbench, MPI, NCCL, ... as the results file had them
  std::vector<std::string> sources;             // the results files (or "probe") it was fitted from
  std::string created_at;                       // ISO-8601 UTC
  std::vector<LinkFit> links;
  SharingFit sharing;
  bool operator==(const Calibration&) const = default;
};

// One measured point as the fit sees it.
struct CalibrationPoint {
  topology::LinkClass link = topology::LinkClass::NET;  // the slowest class the group's traffic crosses
  ops::Op op = ops::Op::all_reduce;
  int group_size = 2;
  int flows = 1;  // most flows on one NIC (NET) or switch uplink at once; 1 when isolated
  std::uint64_t bytes = 0;
  double t_us = 0;  // the point's median
  // The line rate of the link those flows share (or, isolated, of the slowest link crossed),
  // calibration_line_gbps; 0 when unknown.
  double line_gbps = 0;
};

struct FitOptions {
  int max_segments = 3;            // per (link class, family)
  double min_segment_gain = 0.25;  // a new segment must cut the rms log residual by this fraction
  int min_points_per_segment = 3;
  std::uint64_t min_sharing_bytes = 64 * 1024;  // sharing is fitted on bandwidth-bound points only
};

// Fits every (link class, family) with enough points, then the sharing exponents on the
// concurrent points (flows > 1) against the isolated fit.
Calibration fit_calibration(std::span<const CalibrationPoint> points, const FitOptions& options = {});

// The calibrated time of one op whose flows share a link of `line_gbps` (0: the fitted line);
// nullopt when (link, family of op) was not fitted.
std::optional<double> calibrated_time_us(const Calibration& calibration, topology::LinkClass link, ops::Op op, int group_size,
                                         std::uint64_t bytes, int flows, double line_gbps = 0);

// A stable fingerprint of what the fit depends on: node types, slot link classes, NIC speeds, node count.
std::string calibration_digest(const topology::ClusterTopology& topology);
// What Calibration::topology_summary holds: nodes, slots, the link classes inside a node and the
// NICs, e.g. "2 nodes x 2 slots (SYS), 1 NIC per node at 1 Gbit/s".
std::string calibration_summary(const topology::ClusterTopology& topology);
// InputError (exit 2) naming both topologies when `calibration` was measured on another one.
void check_calibration_topology(const Calibration& calibration, const topology::ClusterTopology& topology, const std::string& where);

nlohmann::json to_json(const Calibration& calibration);
// InputError naming `where` and the key on a malformed or unsupported-version file.
Calibration calibration_from_json(const nlohmann::json& json, const std::string& where);
// True when `json` is a calibration file (it has "calibration_version"), not a cost-model override.
bool is_calibration_json(const nlohmann::json& json);

}  // namespace meshbench::mapping
