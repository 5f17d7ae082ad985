#pragma once
// One descriptor per collective, in the manner of nccl-tests' `testColl`: its name, bus
// bandwidth, how the cost model prices it, its buffer layout and its result check. Everything
// that lists, names, prices, sizes or checks ops reads this table; the backends each keep one
// switch that makes the op's calls. docs/development.md ("Adding an op") says what to change.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "common/ops/traffic_matrix.hpp"

namespace meshbench::ops {

// The collectives meshbench measures and models, in table order (the order of every listing).
enum class Op : std::uint8_t { all_reduce, all_gather, reduce_scatter, all_to_all, all_to_allv, send_recv };

// What the cost model prices an op as (mapping/src/cost_model.cpp).
enum class Family : std::uint8_t {
  ring_all_reduce,  // a ring of 2(n-1) steps: reduce-scatter, then all-gather
  ring_gather,      // a ring of n-1 steps: all-gather, reduce-scatter
  all_to_all,       // every rank sends a share to every other rank at once
  point_to_point,   // each rank exchanges with its neighbouring stages
};
inline constexpr std::size_t kFamilyCount = static_cast<std::size_t>(Family::point_to_point) + 1;  // from the last family

// nccl-tests' bus-bandwidth factor for a group of n ranks, so that busbw compares with the
// links' bandwidth whatever the op.
enum class BusFactor : std::uint8_t {
  two_shares,  // 2(n-1)/n: all_reduce
  one_share,   // (n-1)/n: the gather-like ops and the all-to-alls
  whole,       // 1: point to point
};

struct OpLayout;

// The op-specific part of a layout: counts and buffer sizes from the size in elements (and, for
// an op that uses one, the group's traffic matrix).
using ShapeFn = void (*)(OpLayout& layout, std::size_t elements, const TrafficMatrix* matrix);
using FillFn = void (*)(const OpLayout& layout, std::span<float> send);
// Wrong elements in this rank's output (nccl-tests' #wrong counts elements, summed over ranks).
using CheckFn = std::int64_t (*)(const OpLayout& layout, std::span<const float> recv);

struct OpInfo {
  Op op;
  std::string_view name;  // nccl-tests' name: the CLI's --ops and the results file's op column
  BusFactor bus;
  Family family;
  bool traffic_matrix;  // per-peer counts come from the group's (skewed) traffic matrix
  ShapeFn shape;
  FillFn fill;
  CheckFn check;
};

// The columns' functions (common/ops/src/shapes.cpp, checks.cpp).
namespace shape {
void all_reduce(OpLayout&, std::size_t, const TrafficMatrix*);
void all_gather(OpLayout&, std::size_t, const TrafficMatrix*);
void reduce_scatter(OpLayout&, std::size_t, const TrafficMatrix*);
void all_to_all(OpLayout&, std::size_t, const TrafficMatrix*);
void all_to_allv(OpLayout&, std::size_t, const TrafficMatrix*);
void send_recv(OpLayout&, std::size_t, const TrafficMatrix*);
}  // namespace shape
namespace fill {
void rank_pattern(const OpLayout&, std::span<float>);  // every rank sends pattern(rank, i)
}  // namespace fill
namespace check {
std::int64_t all_reduce(const OpLayout&, std::span<const float>);
std::int64_t all_gather(const OpLayout&, std::span<const float>);
std::int64_t reduce_scatter(const OpLayout&, std::span<const float>);
std::int64_t all_to_all(const OpLayout&, std::span<const float>);
std::int64_t all_to_allv(const OpLayout&, std::span<const float>);
std::int64_t send_recv(const OpLayout&, std::span<const float>);
}  // namespace check

inline constexpr std::array kOps = {
    OpInfo{Op::all_reduce, "all_reduce", BusFactor::two_shares, Family::ring_all_reduce, false, shape::all_reduce, fill::rank_pattern,
           check::all_reduce},
    OpInfo{Op::all_gather, "all_gather", BusFactor::one_share, Family::ring_gather, false, shape::all_gather, fill::rank_pattern,
           check::all_gather},
    OpInfo{Op::reduce_scatter, "reduce_scatter", BusFactor::one_share, Family::ring_gather, false, shape::reduce_scatter,
           fill::rank_pattern, check::reduce_scatter},
    OpInfo{Op::all_to_all, "all_to_all", BusFactor::one_share, Family::all_to_all, false, shape::all_to_all, fill::rank_pattern,
           check::all_to_all},
    OpInfo{Op::all_to_allv, "all_to_allv", BusFactor::one_share, Family::all_to_all, true, shape::all_to_allv, fill::rank_pattern,
           check::all_to_allv},
    OpInfo{Op::send_recv, "send_recv", BusFactor::whole, Family::point_to_point, false, shape::send_recv, fill::rank_pattern,
           check::send_recv},
};

// Row i describes the enumerator of value i, so that info() is an index.
inline constexpr bool kRowsInEnumOrder = [] {
  for (std::size_t i = 0; i < kOps.size(); ++i) {
    if (static_cast<std::size_t>(kOps[i].op) != i) return false;
  }
  return true;
}();
static_assert(kRowsInEnumOrder, "common/ops/op.hpp: kOps rows must follow the enumerators of Op");

inline constexpr std::array<Op, kOps.size()> kAllOps = [] {
  std::array<Op, kOps.size()> all{};
  for (std::size_t i = 0; i < kOps.size(); ++i) all[i] = kOps[i].op;
  return all;
}();

constexpr const OpInfo& info(Op op) { return kOps[static_cast<std::size_t>(op)]; }
constexpr std::string_view to_string(Op op) { return info(op).name; }
std::optional<Op> parse_op(std::string_view name);

// Op families by name, in the enumerators' order (the calibration file's "family" and its tables).
inline constexpr std::array<std::string_view, kFamilyCount> kFamilyNames = {"ring_all_reduce", "ring_gather", "all_to_all",
                                                                            "point_to_point"};
constexpr std::string_view to_string(Family family) { return kFamilyNames[static_cast<std::size_t>(family)]; }
std::optional<Family> parse_family(std::string_view name);
// Every op's name in table order, separated by `separator` (the CLI's help and errors).
std::string op_names(std::string_view separator);

double busbw_factor(Op op, int n);

}  // namespace meshbench::ops
