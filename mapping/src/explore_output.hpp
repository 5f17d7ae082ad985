#pragma once
// explore's writers: the ranked table a person reads in one screen, and JSON for scripts.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mapping/explore.hpp"
#include "mapping/measured_fit.hpp"

namespace meshbench::mapping {

struct ExploreReportContext {
  const Workload* workload;
  const TrainingSettings* settings;
  const ExploreHardware* hardware;
  const topology::ClusterTopology* topology;
  std::string model_source;
  std::vector<std::string> notes;  // the workload reader's
  std::optional<MeasuredFit> fit;  // --measured's
  std::string measured_source;
};

std::string explore_text(const ExploreResult& result, const ExploreReportContext& context, int top);
nlohmann::ordered_json explore_json(const ExploreResult& result, const ExploreReportContext& context);
// One layout's entry of the JSON (also what a plan file keeps as the layout's estimate).
nlohmann::ordered_json layout_json(const LayoutEstimate& estimate, const TrainingSettings& settings);

}  // namespace meshbench::mapping
