#include "analysis/report/expected.hpp"

#include <algorithm>

#include "mapping/predict.hpp"

namespace meshbench::analysis {

ExpectedSection expected_section(const std::optional<PredictionAccuracy>& accuracy, const results::ResultsFile& file, double threshold_pct,
                                 const ReportHardware* hardware) {
  ExpectedSection s;
  s.threshold_pct = threshold_pct;
  const PredictorAccuracy* model = nullptr;
  if (accuracy) {
    for (const auto& p : accuracy->predictors) {
      if (!p.points.empty() && model == nullptr && !p.points.front().algorithm.empty()) model = &p;
    }
  }
  if (model == nullptr) {
    s.note = file.topology_json().empty()
                 ? "% of expected: not shown, this file keeps no hardware (imported from another tool's logs); give it with "
                   "--node-type T --nodes N or --topology FILE to see each point's busbw against the model's"
                 : "% of expected: not shown, the model priced no point of this file";
    return s;
  }
  s.known = true;
  s.predictor = model->name;
  s.hardware = hardware != nullptr ? hardware->source : "the topology kept in the results file";
  std::vector<std::string> bases;
  for (const auto& p : model->points) {
    if (!(p.measured_busbw_gbps > 0) || !(p.predicted_us > 0) || !(p.measured_us > 0)) continue;
    // The same bytes and bus factor on both sides: the busbw ratio is the time ratio.
    ExpectedPoint e{p.point,
                    p.measured_busbw_gbps,
                    p.measured_busbw_gbps * p.measured_us / p.predicted_us,
                    100.0 * p.predicted_us / p.measured_us,
                    p.algorithm,
                    p.protocol};
    const std::string basis = mapping::estimate_basis(p.algorithm);
    if (std::find(bases.begin(), bases.end(), basis) == bases.end()) bases.push_back(basis);
    s.points.push_back(std::move(e));
    if (s.points.back().expected_pct < threshold_pct) s.below.push_back(s.points.back());
  }
  std::stable_sort(s.below.begin(), s.below.end(), [](const auto& a, const auto& b) { return a.expected_pct < b.expected_pct; });
  for (std::size_t i = 0; i < bases.size(); ++i) s.model += (i > 0 ? " and " : "") + bases[i];
  return s;
}

}  // namespace meshbench::analysis
