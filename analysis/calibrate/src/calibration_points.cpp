// The points of results files as the fit sees them: each /measurements row's median with the
// link class and the flows on its bottleneck that the cost model finds for the row's mapping and
// dimension on the file's topology, read through the same calibration_link/calibration_flows
// the model prices with.
#include <algorithm>

#include "analysis/calibrate/calibrate.hpp"
#include "analysis/calibrate/src/file_points.hpp"
#include "analysis/report/file_model.hpp"
#include "common/error.hpp"
#include "mapping/cost_model.hpp"
#include "mapping/cost_params.hpp"
#include "mapping/ops.hpp"
#include "results/reader.hpp"

namespace meshbench::analysis {

namespace {

// The timing mode the fit reads: per-iteration (one op, as the model prices it) where the file
// has it, else batched.
std::string fit_timing(const results::ResultsFile& file) {
  const auto& rows = file.measurements();
  return std::any_of(rows.begin(), rows.end(), [](const auto& r) { return r.point.timing == "per_iteration"; }) ? "per_iteration"
                                                                                                                : "batched";
}

}  // namespace

namespace detail {

FilePoints read_file_points(const std::vector<std::string>& results_files) {
  FilePoints out;
  std::string first_digest_file;
  for (const auto& path : results_files) {
    const auto file = results::ResultsFile::open(path, results::ResultsFile::Reading::rows);
    const auto topo = topology_of(file);
    const std::string digest = mapping::calibration_digest(topo);
    const std::string summary = mapping::calibration_summary(topo);
    if (out.files.empty()) {
      out.topology_digest = digest;
      out.topology_summary = summary;
    } else if (digest != out.topology_digest) {
      throw InputError(path + " was measured on another topology (" + summary + ") than " + out.files.front() + " (" +
                       out.topology_summary + "); calibrate from files of one cluster at a time");
    }
    const std::size_t index = out.files.size();
    out.files.push_back(path);
    for (const auto& [name, value] : file.provenance().versions) {
      auto [it, added] = out.versions.try_emplace(name, value);
      if (!added && it->second != value && it->second.find(value) == std::string::npos) it->second += ", " + value;
    }

    const mapping::CostModel model(topo, mapping::default_cost_params(topo));
    const FileScores scores(model, file);
    const std::string timing = fit_timing(file);
    for (const auto& row : file.measurements()) {
      ++out.rows;
      if (row.point.timing != timing) {
        ++out.other_timing;
        continue;
      }
      if (row.wrong > 0) {
        ++out.wrong;
        continue;
      }
      const auto op = mapping::parse_op(row.point.op);
      const auto dim = mapping::parse_dim(row.point.dim);
      const auto* score = scores.find(row.point.mapping);
      if (!op || !dim || score == nullptr || !(row.t_median_us > 0) || row.group_size < 2) {
        ++out.unusable;
        continue;
      }
      // Its time depends on the routing skew of the traffic matrix, which no link parameter holds.
      if (*op == mapping::Op::all_to_allv) {
        ++out.skewed;
        continue;
      }
      const mapping::DimShape& shape = score->of(*dim);
      mapping::CalibrationPoint p;
      p.link = mapping::calibration_link(shape);
      p.op = *op;
      p.group_size = row.group_size;
      const bool isolated = row.point.concurrency == "isolated";
      p.flows = mapping::calibration_flows(shape, isolated);
      p.line_gbps = mapping::calibration_line_gbps(shape, isolated);
      p.bytes = row.point.bytes;
      p.t_us = row.t_median_us;
      out.points.push_back(p);
      out.file_of_point.push_back(index);
    }
  }
  return out;
}

}  // namespace detail

std::vector<mapping::CalibrationPoint> calibration_points(const std::vector<std::string>& results_files) {
  return detail::read_file_points(results_files).points;
}

}  // namespace meshbench::analysis
