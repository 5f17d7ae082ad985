#pragma once
// `meshbench history --plot DIR`: one PNG per family series with a change, drawn by matplotlib
// from the history's JSON (analysis/history/plots/history_plots.py, run the way report --plot
// runs its script: analysis/report/plot_script.hpp).
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/history/history.hpp"

namespace meshbench::analysis {

// The embedded plotting script (analysis/history/plots/history_plots.py).
const char* history_plots_script();

// One picture: the family `series` of configuration `configuration` (indexes into the
// History) and the file it goes to.
struct HistoryPlot {
  std::size_t configuration = 0, series = 0;
  std::string file;
};

// Every family series (not points) with at least one change, in the history's order. Files are
// "c<configuration number>-<the series' name, lower case, every run of other characters than
// a-z 0-9 _ . turned into one '-'>.png" ("c1-all_reduce-at-64-kib-per_iteration-isolated.png"),
// with "-2", "-3"… before ".png" where two names would otherwise be the same.
std::vector<HistoryPlot> history_plots(const History& history);

// Draws history_plots(history) into `dir` (created) and returns the files written; writes
// nothing and creates no folder when no family changed. InputError in one line when python3 or
// matplotlib is missing, the folder cannot be written or the script fails; nothing is left then.
std::vector<std::string> write_history_plots(const History& history, const std::string& dir);

}  // namespace meshbench::analysis
