#pragma once
// The mappings a measuring command measures, with the plan they came from (run's choice of them:
// bench/run/run_plan.hpp; the calibration probe's: bench/calibration).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/routing_skew.hpp"
#include "mapping/calibration.hpp"
#include "mapping/mapping.hpp"
#include "topology/cluster.hpp"

namespace meshbench::bench {

// One layout of a plan file of several (mapping/plan_set.hpp).
struct RunLayout {
  std::string name;  // "ep4"; mapping names start "<name>/"
  mapping::Layout layout;
  std::string workload_json;  // empty without a workload
  std::string estimate_json;  // the explorer's estimate, kept for the results file; empty when none
};

struct RunMappings {
  mapping::Layout layout;              // with several layouts, the first
  std::vector<RunLayout> layouts;      // a plan file of several layouts; empty for one
  std::vector<std::string> layout_of;  // with several layouts: per mapping, its layout's name
  std::vector<mapping::Mapping> mappings;
  std::vector<std::vector<std::pair<std::string, double>>> predicted_us;  // per mapping: dim -> µs, "step"
  std::string workload_json;
  std::map<mapping::Dim, std::vector<std::uint64_t>> workload_sizes;
  std::string plan_json;                            // the whole plan (mapping/plan.hpp), kept in the results file
  std::optional<mapping::Calibration> calibration;  // the fitted model the plan was made with
  double a2av_skew = kDefaultRoutingSkew;           // the routing skew the plan priced (common/routing_skew.hpp)
};

}  // namespace meshbench::bench
