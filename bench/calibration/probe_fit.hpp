#pragma once
// How the probe's results files become a calibration. The fit is analysis/calibrate's
// (calibrate_from_results), which reads each file through report's view of its model; bench
// never links report, so the binary hands the fit in (app/main.cpp; docs/architecture.md,
// "Modules and their arrows").
#include <functional>
#include <string>
#include <vector>

#include "mapping/calibration.hpp"

namespace meshbench::bench {

// The cost model fitted from `results_files`, requiring the sharing term when `require_sharing`
// (the topology's NICs are shared); InputError when the points cannot determine a parameter.
using ProbeFit = std::function<mapping::Calibration(const std::vector<std::string>& results_files, bool require_sharing)>;

}  // namespace meshbench::bench
