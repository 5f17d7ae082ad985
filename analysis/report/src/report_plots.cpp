#include "analysis/report/report_plots.hpp"

#include "analysis/report/charts.hpp"
#include "analysis/report/plot_script.hpp"
#include "analysis/report/report_writers.hpp"
#include "common/ops/op.hpp"

namespace meshbench::analysis {

std::vector<std::string> write_plots(const Report& report, const std::string& dir) {
  // The script names no op: it orders them as the op table does. The charts the HTML page
  // draws too come described (analysis/report/charts.hpp): the script only draws them.
  nlohmann::json input = report_to_json(report);
  for (const auto& row : ops::kOps) input["op_order"].push_back(row.name);
  input["charts"] = charts_to_json(describe_charts(report));
  return run_plot_script({{"plots.py", plots_script()}}, input.dump(), dir);
}

}  // namespace meshbench::analysis
