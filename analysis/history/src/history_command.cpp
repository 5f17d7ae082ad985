// meshbench history: change points over a series of runs. Exit 0 clean, 1 a series got slower,
// 2 bad input, 3 inconclusive (too few runs to reach the p-value asked for), as compare's.
#include "analysis/history/history_command.hpp"

#include <iostream>

#include "analysis/compare/compare.hpp"
#include "analysis/history/history.hpp"
#include "analysis/history/history_plots.hpp"
#include "analysis/history/history_writers.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {

namespace {

constexpr const char* kSummary =
    "Order results files by start time (per configuration: runs of another layout or machine shape are grouped apart,\n"
    "never mixed), build a time series per point and per family of points (one op at one size, one collective at every\n"
    "size, a dimension, the whole run), and find the change points in each by E-Divisive means with a permutation test.\n"
    "Each change is named by the run where the new level starts and what the runs' provenance says changed there;\n"
    "--plot DIR draws a PNG per family with a change.\n"
    "Exit status: 0 clean, 1 a series changed to slower, 2 bad input, 3 inconclusive: no series changed to slower, but some\n"
    "configuration has too few runs for a step of --min-runs runs to reach --p-value (the output says how many are needed).\n"
    "docs/report.md (\"meshbench history\").";

}  // namespace

int history_command(const Args& args) {
  std::vector<std::string> paths;
  std::string format_name, plot_dir;
  HistoryOptions o;
  po::options_description options("history options");
  // clang-format off
  options.add_options()
      ("paths", po::value(&paths)->value_name("FILE"), "results files or folders of them (positional)")
      ("p-value", po::value(&o.change_points.p_value)->default_value(0.01, "0.01")->value_name("P"),
       "a change counts when its permutation p-value is at most this")
      ("permutations", po::value(&o.change_points.permutations)->default_value(999)->value_name("N"), "shuffles per test")
      ("min-runs", po::value(&o.change_points.min_segment)->default_value(3)->value_name("N"), "runs on each side of a change, at least")
      ("min-change", po::value(&o.change_points.min_change)->default_value(0.05, "0.05")->value_name("FRACTION"),
       "the levels on either side differ by at least this (0.05 = 5%)")
      ("seed", po::value(&o.change_points.seed)->default_value(1), "seed of the shuffles (the same runs and seed give the same answer)")
      ("all-env", po::bool_switch(&o.all_environment), "also list per-launch variables (job ids, ports, URIs) among the changes")
      ("format", po::value(&format_name)->default_value("text")->value_name("FORMAT"), "output: text, json or markdown")
      ("plot", po::value(&plot_dir)->default_value("")->value_name("DIR"),
       "also write a PNG per family with a change there (none, and no folder, when nothing changed); needs python3-matplotlib");
  // clang-format on
  po::positional_options_description positional;
  positional.add("paths", -1);
  const auto vm = parse_command("history", kSummary, options, args, std::cout, &positional);
  if (!vm) return kExitOk;
  if (!(o.change_points.min_change >= 0 && o.change_points.min_change < 10))
    throw InputError("--min-change must be a fraction between 0 and 10");
  const OutputFormat format = parse_output_format(format_name, {OutputFormat::text, OutputFormat::json, OutputFormat::markdown});
  if (paths.empty())
    throw InputError("history needs results files or a folder of them: meshbench history run1.h5 run2.h5... or meshbench history DIR");
  // The rows alone: a history is of each run's point medians, and /samples and /group_timings are
  // most of a file's bytes and of its reading time.
  std::vector<results::ResultsFile> runs;
  for (const auto& p : paths) {
    for (const auto& file : expand_results_paths(p)) runs.push_back(results::ResultsFile::open(file, results::ResultsFile::Reading::rows));
  }
  const History h = build_history(runs, o);
  // The plots are drawn before anything is printed, so that a failure prints one line.
  const auto written = plot_dir.empty() ? std::vector<std::string>{} : write_history_plots(h, plot_dir);
  write_history(h, format, std::cout);
  for (const auto& w : written) std::cerr << "meshbench history: wrote " << w << "\n";
  if (!plot_dir.empty() && written.empty()) {
    // Under --format json stdout holds one JSON document, so the note goes to stderr there.
    (format == OutputFormat::json ? std::cerr : std::cout) << "no family changed: no plot written, " << plot_dir << " left as it was\n";
  }
  return exit_status(h.gate_verdict());
}

}  // namespace meshbench::analysis
