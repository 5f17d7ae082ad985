#pragma once
// NCCL's own tuning model (src/graph/tuning.cc, and the channel choice of src/enqueue.cc), as
// the cost model prices GPU groups: which algorithm and protocol NCCL picks for an op, a size,
// a GPU count and a node count, and what it then takes. docs/mapping.md ("GPU links: NCCL's
// tuning model") lists the figures and where each comes from.
#include <string_view>

namespace meshbench::mapping {

// The NCCL release whose tuning constants the model carries (tag v2.28.9-1).
inline constexpr std::string_view kNcclTuningVersion = "2.28.9";

}  // namespace meshbench::mapping
