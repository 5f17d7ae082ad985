#pragma once
#include <span>

#include "common/ops/op.hpp"
#include "mapping/layout.hpp"

namespace meshbench::mapping {

// The ops are described once, in common/ops/op.hpp; the planner names them as it always has.
using ops::busbw_factor;
using ops::kAllOps;
using ops::Op;
using ops::parse_op;
using ops::to_string;

// The ops a dimension typically runs in training: TP all-reduce, all-gather, reduce-scatter;
// EP all-to-all (uniform and skewed); DP/EDP all-reduce (+ RS/AG for sharded optimizers); PP
// send/recv; CP all-gather; ETP all-gather and reduce-scatter.
std::span<const Op> typical_ops(Dim dim);

}  // namespace meshbench::mapping
