#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "mapping/layout.hpp"

namespace meshbench::mapping {

// The collectives meshbench measures and models. Names are nccl-tests' operation names.
enum class Op : std::uint8_t { all_reduce, all_gather, reduce_scatter, all_to_all, all_to_allv, send_recv };
inline constexpr std::array<Op, 6> kAllOps = {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::all_to_all, Op::all_to_allv, Op::send_recv};

std::string_view to_string(Op op);
std::optional<Op> parse_op(std::string_view name);

// nccl-tests' bus-bandwidth factor for a group of n ranks (reference/peers-nccl-osu.md §1.4):
// all_reduce 2(n-1)/n; all_gather, reduce_scatter, all_to_all(v) (n-1)/n; send_recv 1.
double busbw_factor(Op op, int n);

// The ops a dimension typically runs in training (DESIGN.md §3): TP all-reduce, all-gather,
// reduce-scatter; EP all-to-all (uniform and skewed); DP/EDP all-reduce (+ RS/AG for sharded
// optimizers); PP send/recv; CP all-gather; ETP all-gather and reduce-scatter.
std::span<const Op> typical_ops(Dim dim);

}  // namespace meshbench::mapping
