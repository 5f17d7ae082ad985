#pragma once
// `meshbench report --plot DIR`: PNG plots drawn by matplotlib from the report's JSON and the
// chart descriptions it shares with the HTML page (analysis/report/charts.hpp).
#include <string>
#include <vector>

#include "analysis/report/report.hpp"

namespace meshbench::analysis {

// The embedded plotting script (analysis/report/plots/plots.py).
const char* plots_script();

// Writes busbw_<dim>.png per dimension, ranking.png, group_spread.png, placement.png (where the
// best few mappings' groups land, when the file keeps its topology) (and
// predicted_vs_measured.png: every predictor of the accuracy section, else the plan's
// predictions) into `dir`, creating it. Returns the files
// written. InputError in one line when python3 or matplotlib is missing or the script fails
// (analysis/report/plot_script.hpp: then nothing is written).
std::vector<std::string> write_plots(const Report& report, const std::string& dir);

}  // namespace meshbench::analysis
