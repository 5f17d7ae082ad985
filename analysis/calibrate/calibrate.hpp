#pragma once
#include <string>
#include <vector>

#include "mapping/calibration.hpp"

namespace meshbench::analysis {

// The points of results files as the fit sees them: each /measurements row (median) with the
// link class and flows the cost model finds for its mapping and dimension on the file's topology.
// InputError when a file is not a results file, or the files' topologies differ.
std::vector<mapping::CalibrationPoint> calibration_points(const std::vector<std::string>& results_files);

// Fits a calibration from results files; InputError naming the missing points (link class, op
// family, sizes, or concurrent points for sharing) when the files cannot determine a parameter
// that `required` asks for.
struct CalibrateRequest {
  std::vector<std::string> results_files;
  mapping::FitOptions fit;
  bool require_sharing = false;  // the topology has NICs shared by several slots
};
mapping::Calibration calibrate_from_results(const CalibrateRequest& request);

}  // namespace meshbench::analysis
