// "Measure one layout, rank the rest" on published runs (tests/data/published): for each model
// and GPU with two or more rows, each row in turn taken as the measured run; explore's constants
// are fitted to it and the other rows of that model and GPU predicted. Prints the median
// |log(predicted/published step)| of those predictions before and after the fit, per model and
// measured row, and the constants each fit settled on: the table in docs/explore.md, "A measured
// run". Not a test (the unit test ExploreMeasured.PublishedRowFitImprovesTheOthers checks one fit).
//   build/perf/perf_explore_measured
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "common/median.hpp"
#include "tests/unit/mapping/published_runs.hpp"

int main() {
  using namespace meshbench::mapping;
  using meshbench::median_of;
  const auto rows = published_runs();
  std::map<std::string, std::vector<const PublishedRun*>> groups;
  for (const auto& r : rows) groups[r.model + " on " + r.gpu].push_back(&r);
  std::vector<double> all_before, all_after;
  for (const auto& [name, group] : groups) {
    if (group.size() < 2) continue;
    std::printf("%s: %zu rows\n", name.c_str(), group.size());
    std::vector<double> medians_before, medians_after;
    for (const PublishedRun* measured : group) {
      const MeasuredFit fit =
          fit_to_measured(measured->workload, measured->run, measured->hardware, measured->cluster, default_cost_params(measured->cluster));
      std::vector<double> before, after;
      for (const PublishedRun* other : group) {
        if (other == measured) continue;
        const double published = other->run.step_ms;
        before.push_back(std::abs(std::log(predicted_step_ms(*other, 0.5, 0.0) / published)));
        after.push_back(std::abs(std::log(predicted_step_ms(*other, fit.efficiency_after, fit.overlap_after) / published)));
      }
      medians_before.push_back(median_of(before));
      medians_after.push_back(median_of(after));
      all_before.insert(all_before.end(), before.begin(), before.end());
      all_after.insert(all_after.end(), after.begin(), after.end());
      std::printf("  measured %-52s %8.0f ms (estimate %8.0f): efficiency %.3f, hidden %.3f; others' median error %5.1f%% -> %5.1f%%\n",
                  measured->id.c_str(), fit.measured_ms, fit.before_ms, fit.efficiency_after, fit.overlap_after,
                  100 * medians_before.back(), 100 * medians_after.back());
    }
    std::printf("  median over the choice of measured row: %.1f%% before, %.1f%% after\n", 100 * median_of(medians_before),
                100 * median_of(medians_after));
  }
  std::printf("all predictions: median error %.1f%% before, %.1f%% after (%zu predictions)\n", 100 * median_of(all_before),
              100 * median_of(all_after), all_before.size());
  return 0;
}
