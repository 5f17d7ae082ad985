// The fit from results files, and what it refuses: a parameter the files' points cannot
// determine is named, with the measurement that would determine it.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "analysis/calibrate/calibrate.hpp"
#include "analysis/calibrate/calibration_text.hpp"
#include "analysis/calibrate/src/file_points.hpp"
#include "common/error.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"
#include "results/records.hpp"

namespace meshbench::analysis {

namespace {

// A latency needs a size where it dominates and a bandwidth one where the bytes do.
constexpr std::uint64_t kLatencySizeMax = 4 * 1024;
constexpr std::uint64_t kBandwidthSizeMin = 64 * 1024;
constexpr int kMinDistinctSizes = 3;
constexpr const char* kSweepAdvice = "measure sizes from 8 B to 64 MiB ('meshbench run … -b 8 -e 64M')";

std::string files_of(const detail::FilePoints& fp, const std::set<std::size_t>& which) {
  std::vector<std::string> names;
  for (const auto i : which) names.push_back(fp.files[i]);
  return join(names, ", ");
}

std::string sizes_text(const std::set<std::uint64_t>& sizes) {
  return sizes.empty() ? "none" : join(sizes, ", ", [](std::uint64_t b) { return format_bytes(b); });
}

void refuse_undetermined(const detail::FilePoints& fp, const CalibrateRequest& request) {
  if (fp.points.empty()) {
    throw InputError(join(fp.files, ", ") + ": no measured point the fit can use (" + std::to_string(fp.rows) +
                     " rows: " + std::to_string(fp.wrong) + " with wrong results, " + std::to_string(fp.skewed) + " all_to_allv, " +
                     std::to_string(fp.unusable + fp.other_timing) + " unusable or of the other timing mode); " + kSweepAdvice);
  }
  // Per (link class, family): the sizes of its one-flow points, and the files they came from.
  struct Seen {
    std::set<std::uint64_t> sizes;
    std::set<std::size_t> files;
    int shared = 0;  // points with more than one flow on the bottleneck
    int most_flows = 1;
  };
  std::map<std::pair<topology::LinkClass, ops::Family>, Seen> seen;
  std::set<std::size_t> sharing_files;
  bool sharing = false;
  for (std::size_t i = 0; i < fp.points.size(); ++i) {
    const auto& p = fp.points[i];
    auto& s = seen[{p.link, ops::info(p.op).family}];
    s.files.insert(fp.file_of_point[i]);
    if (p.flows <= 1) {
      s.sizes.insert(p.bytes);
    } else {
      ++s.shared;
      s.most_flows = std::max(s.most_flows, p.flows);
      if (p.bytes >= request.fit.min_sharing_bytes) sharing = true;
    }
    sharing_files.insert(fp.file_of_point[i]);
  }
  for (const auto& [key, s] : seen) {
    const std::string what =
        files_of(fp, s.files) + ": " + std::string(topology::to_string(key.first)) + " " + std::string(ops::to_string(key.second));
    if (s.sizes.empty()) {
      throw InputError(what + " has only points where " + std::to_string(s.most_flows) +
                       " flows share the NIC or uplink; its alpha and bandwidth need points of one group alone: rerun with --isolated");
    }
    const bool latency = *s.sizes.begin() <= kLatencySizeMax, bandwidth = *s.sizes.rbegin() >= kBandwidthSizeMin;
    if (static_cast<int>(s.sizes.size()) < kMinDistinctSizes || !latency || !bandwidth) {
      throw InputError(what + " has one-flow points at " + std::to_string(s.sizes.size()) + " size(s) (" + sizes_text(s.sizes) +
                       "); alpha and bandwidth need at least " + std::to_string(kMinDistinctSizes) +
                       ", one <= 4 KiB and one >= 64 KiB: " + kSweepAdvice);
    }
  }
  if (request.require_sharing && !sharing) {
    throw InputError(files_of(fp, sharing_files) + ": no concurrent point of " + format_bytes(request.fit.min_sharing_bytes) +
                     " or more where several flows share a NIC or switch uplink; the sharing term needs them: measure a layout "
                     "whose groups share one (more groups leaving a node than it has NICs, e.g. DP across nodes)");
  }
}

}  // namespace

mapping::Calibration calibrate_from_results(const CalibrateRequest& request) {
  if (request.results_files.empty())
    throw InputError("no results file to fit from: meshbench calibrate RUN.h5 [MORE.h5 …] --out cost.json");
  const detail::FilePoints fp = detail::read_file_points(request.results_files);
  refuse_undetermined(fp, request);
  mapping::Calibration c = mapping::fit_calibration(fp.points, request.fit);
  c.topology_digest = fp.topology_digest;
  c.topology_summary = fp.topology_summary;
  c.versions = fp.versions;
  c.sources = fp.files;
  c.created_at = results::utc_now_iso8601();
  return c;
}

}  // namespace meshbench::analysis
