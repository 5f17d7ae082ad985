#pragma once
#include <cstddef>
#include <vector>

#include "bench/measure.hpp"

namespace meshbench::bench {

// Which groups of a point go to /group_timings. Up to `limit` groups (0: no limit) every one;
// past that `limit` groups that stand for them: the slowest quarter exactly (they name the slow
// nodes and links), the fastest and the median group, and the rest at even steps through the
// distribution of group medians. At 65,536 ranks a dimension has up to 32,768 groups per point;
// storing each would make the file's group rows grow with the cluster (docs/reliability.md).
// Returned in group order.
std::vector<GroupResult> representative_groups(const std::vector<GroupResult>& groups, std::size_t limit);

}  // namespace meshbench::bench
