// TEMPORARY planner: every valid order with identity placement, until mapping's planner lands.
#include "bench/src/run_plan.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace meshbench::bench {

PlannedRun plan_run(const RunConfig& config, const topology::ClusterTopology& topology) {
  PlannedRun p;
  p.layout = config.layout;
  p.layout.world = topology.slot_count();
  mapping::validate(p.layout);
  std::vector<std::string> tokens = {"tp", "cp", "ep", "dp", "pp"};
  std::sort(tokens.begin(), tokens.end());
  std::vector<int> identity(static_cast<std::size_t>(p.layout.world));
  for (int i = 0; i < p.layout.world; ++i) identity[static_cast<std::size_t>(i)] = i;
  do {
    std::string order;
    for (const auto& t : tokens) order += (order.empty() ? "" : "-") + t;
    auto l = p.layout;
    l.order = order;
    try {
      auto m = mapping::make_mapping("order:" + order, "identity placement, order " + order, l, identity);
      const bool dup = std::any_of(p.mappings.begin(), p.mappings.end(), [&](const auto& o) { return mapping::same_structure(o, m); });
      if (!dup) p.mappings.push_back(std::move(m));
    } catch (const InputError&) {
    }
  } while (std::next_permutation(tokens.begin(), tokens.end()));
  p.predicted_us.resize(p.mappings.size());
  return p;
}

}  // namespace meshbench::bench
