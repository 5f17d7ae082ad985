#pragma once
// The points of results files with where each came from, for the fit's refusals (internal).
#include <map>
#include <string>
#include <vector>

#include "mapping/calibration.hpp"

namespace meshbench::analysis::detail {

struct FilePoints {
  std::vector<mapping::CalibrationPoint> points;
  std::vector<std::size_t> file_of_point;  // index into `files`
  std::vector<std::string> files;
  std::string topology_digest, topology_summary;
  std::map<std::string, std::string> versions;  // /provenance/versions of the files, merged
  // Rows left out, over all files, and why.
  int rows = 0, wrong = 0, skewed = 0, other_timing = 0, unusable = 0;
};

// Reads every file (results::ResultsFile): InputError when one is not a results file or the
// files' topologies differ (naming both).
FilePoints read_file_points(const std::vector<std::string>& results_files);

}  // namespace meshbench::analysis::detail
