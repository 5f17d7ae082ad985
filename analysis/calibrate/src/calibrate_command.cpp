// meshbench calibrate RUN.h5 [MORE.h5 …] --out cost.json: fits the cost model's parameters from
// what runs already measured, prints the fit, and writes the calibration file.
#include "analysis/calibrate/calibrate_command.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "analysis/calibrate/calibrate.hpp"
#include "analysis/calibrate/calibration_text.hpp"
#include "common/error.hpp"
#include "mapping/plan.hpp"

namespace meshbench::analysis {

namespace {

constexpr const char* kSummary =
    "Fit the cost model from results files: per link class and op family alpha and bandwidth (in size segments where\n"
    "one line does not fit), weighted least squares on the log of the time; then how bandwidth shares when several\n"
    "flows cross one NIC or PCIe switch uplink, from the concurrent points against the isolated fit. Each point is a\n"
    "/measurements median with the link class and flows the cost model finds for its mapping and dimension.\n"
    "Refuses, naming what is missing, when the files cannot determine a parameter. 'plan', 'run' and 'report' take\n"
    "the file with --cost-model. docs/report.md (\"calibrate\"), docs/mapping.md (\"Calibration\").";

bool is_hdf5(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[8] = {};
  in.read(magic, sizeof magic);
  return in.gcount() == sizeof magic && std::string(magic, sizeof magic) == "\x89HDF\r\n\x1a\n";
}

// An option that takes no value: what follows it may be a file. Any other option (this
// command's --out, the probe's --results or --topology) takes the next argument as its value.
bool is_flag(const std::string& a) {
  return a == "--force" || a == "--require-sharing" || a == "--help" || a == "-h" || a.find('=') != std::string::npos;
}

}  // namespace

bool calibrate_args_name_files(const Args& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || a[0] == '-') continue;
    if (i > 0 && args[i - 1][0] == '-' && !is_flag(args[i - 1])) continue;  // that option's value
    if (std::filesystem::path(a).extension() == ".h5" || is_hdf5(a)) return true;
  }
  return false;
}

int calibrate_command(const Args& args) {
  CalibrateRequest request;
  std::string out, format_name;
  bool force = false;
  po::options_description options("calibrate options");
  // clang-format off
  options.add_options()
      ("files", po::value(&request.results_files)->value_name("RUN.h5"), "results files written by 'meshbench run' on one cluster (positional)")
      ("out", po::value(&out)->default_value("")->value_name("FILE"), "write the calibration (JSON, docs/mapping.md) here")
      ("force", po::bool_switch(&force), "replace --out when it exists")
      ("require-sharing", po::bool_switch(&request.require_sharing),
       "refuse unless the files determine the sharing term (concurrent points with several flows on one NIC or uplink)")
      ("format", po::value(&format_name)->default_value("text")->value_name("FORMAT"), "output: text or json (the file's content)");
  // clang-format on
  po::positional_options_description positional;
  positional.add("files", -1);
  const auto vm = parse_command("calibrate", kSummary, options, args, std::cout, &positional);
  if (!vm) return kExitOk;
  const OutputFormat format = parse_output_format(format_name, {OutputFormat::text, OutputFormat::json});
  if (!out.empty() && !force && std::filesystem::exists(out)) throw InputError("'" + out + "' exists; pass --force to overwrite it");

  const mapping::Calibration calibration = calibrate_from_results(request);
  const std::string json = mapping::to_json(calibration).dump(2) + "\n";
  if (!out.empty()) mapping::write_output_file(out, json, force);
  if (format == OutputFormat::json) {
    std::cout << json;
  } else {
    std::cout << calibration_text(calibration);
  }
  if (!out.empty()) std::cerr << "meshbench calibrate: wrote " << out << "\n";
  return kExitOk;
}

}  // namespace meshbench::analysis
