#pragma once
// The benchmark's view of the op table (common/ops/): the layout, fill and check every backend
// shares, under the names bench has always used.
#include "bench/traffic_matrix.hpp"
#include "common/ops/layout.hpp"
#include "mapping/ops.hpp"

namespace meshbench::bench {

using ops::count_wrong;
using ops::device_bytes_needed;
using ops::fill_send;
using ops::kAlignBytes;
using ops::kAlignElements;
using ops::kDtypeName;
using ops::kElementBytes;
using ops::Op;
using ops::op_layout;
using ops::OpLayout;
using ops::pattern;

}  // namespace meshbench::bench
