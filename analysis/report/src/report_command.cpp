// meshbench report: rank a results file's mappings for the ML reader (step time, how to apply
// the best) and explain them to the infrastructure reader (busbw, group spread, slow hosts).
#include <algorithm>
#include <iostream>
#include <sstream>

#include "analysis/report/report.hpp"
#include "analysis/report/report_command.hpp"
#include "analysis/report/report_plots.hpp"
#include "analysis/report/report_writers.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "topology/options.hpp"

namespace meshbench::analysis {

namespace {

constexpr const char* kSummary =
    "Rank the mappings of a results file by measured cost. With a workload (stored in the file, or --workload)\n"
    "the ranking is the estimated communication time per training step, per dimension and in total, read off\n"
    "the measured curves at the workload's message sizes; without one, the geometric mean of each mapping's\n"
    "time over the fastest mapping's at every commonly measured point. Then busbw against size, the spread\n"
    "across groups with the hosts of the slowest group, the plan's predictions against the measurements, and\n"
    "the cost model's accuracy per point, dimension and mapping (uncalibrated, and calibrated with --cost-model),\n"
    "and each point's busbw as a share of what the model expects on the hardware (\"% of expected\"; --node-type/--nodes\n"
    "or --topology give the hardware of an imported log).";

// Whole or not at all: a page cut short would look like a report that lacks sections.
std::string write_html_report(const Report& report, const std::string& path) {
  std::ostringstream page;
  HtmlReportWriter().write(report, page);
  try {
    write_file_atomically(path, page.str());
  } catch (const AtomicWriteError& e) {
    throw InputError("cannot write the --html file " + path + ": " + e.reason() + "; give a writable path");
  }
  return path;
}

// The hardware options as typed, for the report to say where its expectation came from.
std::string hardware_source(const topology::TopologyOptions& o) {
  std::string s;
  if (!o.node_type.empty()) s += "--node-type " + o.node_type;
  if (!o.file.empty()) s += std::string(s.empty() ? "" : " ") + "--topology " + o.file;
  return s + " --nodes " + std::to_string(std::max(1, o.nodes));
}

}  // namespace

int report_command(const Args& args) {
  std::string file, workload_path, cost_model_path, format_name, plot_dir, html_path, export_dir, export_mapping;
  bool force = false;
  double expect_below = kExpectBelowPct;
  topology::TopologyOptions hardware_options;
  po::options_description options("report options");
  // clang-format off
  options.add_options()
      ("file", po::value(&file)->value_name("FILE.h5"), "results file written by 'meshbench run' (positional)")
      ("workload", po::value(&workload_path)->default_value("")->value_name("FILE"),
       "workload JSON (docs/mapping.md) to estimate step time with; default: the one stored in the file, if any")
      ("cost-model", po::value(&cost_model_path)->default_value("")->value_name("FILE"),
       "a calibration from 'meshbench calibrate' (or cost-model overrides) to judge beside the plan's uncalibrated model; "
       "default: the calibration the results file or its plan carries, if any")
      ("format", po::value(&format_name)->default_value("text")->value_name("FORMAT"), "output: text, csv, json or markdown")
      ("plot", po::value(&plot_dir)->default_value("")->value_name("DIR"),
       "also write PNG plots there (busbw per dimension, ranking, group spread); needs python3-matplotlib")
      ("html", po::value(&html_path)->default_value("")->value_name("FILE"),
       "also write the report as one self-contained HTML page there (placement pictures, charts; nothing fetched)")
      ("export", po::value(&export_dir)->default_value("")->value_name("DIR"),
       "write the best mapping's rankfile, slurm_hostfile, megatron_args.txt (and cuda_visible_devices.txt/.sh) there")
      ("mapping", po::value(&export_mapping)->default_value("")->value_name("NAME"), "with --export: this mapping instead of the best")
      ("force", po::bool_switch(&force), "with --export: overwrite files already there")
      ("expect-below", po::value(&expect_below)->default_value(kExpectBelowPct)->value_name("PCT"),
       "name the points whose busbw is below PCT% of the cost model's (\"% of expected\")");
  // clang-format on
  po::options_description hardware_group(
      "the hardware of a file that keeps none (an imported nccl-tests or OSU log), for \"% of expected\"");
  topology::add_topology_options(hardware_group, hardware_options);
  options.add(hardware_group);
  po::positional_options_description positional;
  positional.add("file", 1);
  const auto vm = parse_command("report", kSummary, options, args, std::cout, &positional);
  if (!vm) return kExitOk;
  if (file.empty()) throw InputError("report needs a results file: meshbench report FILE.h5");
  const OutputFormat format =
      parse_output_format(format_name, {OutputFormat::text, OutputFormat::csv, OutputFormat::json, OutputFormat::markdown});

  if (!(expect_below > 0) || expect_below > 1000)
    throw InputError("--expect-below must be a percentage above 0 (got " + std::to_string(expect_below) + "); e.g. --expect-below 70");

  const auto results = results::ResultsFile::open(file);
  std::optional<ReportHardware> hardware;
  if (hardware_options.given())
    hardware = ReportHardware{topology::load_offline_topology(hardware_options, false), hardware_source(hardware_options)};
  std::string workload_source;
  const auto workload = choose_workload(results, workload_path, workload_source);
  // A file of meshbench io alone holds no topology to predict with.
  const bool io_only = results.measurements().empty() && !results.io_rows().empty();
  const ReportHardware* given = hardware ? &*hardware : nullptr;
  const Report report =
      build_report(results, workload, workload_source,
                   io_only ? std::vector<Predictor>{} : report_predictors(results, cost_model_path, given), given, expect_below);

  // Everything that can fail runs before the report is printed, so a failure prints one line.
  std::vector<std::string> written;
  if (!plot_dir.empty()) written = write_plots(report, plot_dir);
  if (!export_dir.empty()) {
    if (export_mapping.empty() && !report.best) throw InputError("no complete mapping to export; name one with --mapping");
    const std::string name = export_mapping.empty() ? report.best->mapping : export_mapping;
    for (auto& p : export_apply_files(plan_of(results), name, export_dir, force)) written.push_back(std::move(p));
  }
  if (!html_path.empty()) written.push_back(write_html_report(report, html_path));
  make_report_writer(format)->write(report, std::cout);
  for (const auto& w : written) std::cerr << "meshbench report: wrote " << w << "\n";
  return kExitOk;
}

}  // namespace meshbench::analysis
