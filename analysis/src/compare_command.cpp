// meshbench compare: the regression check between two results files, for people and for CI
// (exit 0: no regression, 1: regression, 2: bad input).
#include <iostream>

#include "analysis/commands.hpp"
#include "analysis/compare.hpp"
#include "analysis/compare_writers.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {

namespace {

constexpr const char* kSummary =
    "Compare two results files (before and after a driver, NCCL, libfabric or EFA upgrade). Points are matched by\n"
    "mapping structure, dimension, op, backend, timing and size. A point regressed when its new median is slower by\n"
    "more than --threshold, a one-sided Mann-Whitney U test on both runs' samples (corrected for autocorrelation)\n"
    "finds it significant, and it stands out from how all points moved between the runs (Benjamini-Hochberg over\n"
    "all points for both). Collectives and sizes whose points moved together, and a whole run that moved, are\n"
    "findings of their own. Provenance changes come first.\n"
    "Exit status: 0 no regression, 1 a regression (or wrong results), 2 bad input. docs/report.md says why.";

}  // namespace

int compare_command(const Args& args) {
  std::string base_path, new_path, format_name;
  CompareOptions o;
  po::options_description options("compare options");
  options.add_options()
      ("base", po::value(&base_path)->value_name("BASE.h5"), "the earlier results file (positional)")
      ("new", po::value(&new_path)->value_name("NEW.h5"), "the later results file (positional)")
      ("threshold", po::value(&o.threshold)->default_value(0.05, "0.05")->value_name("FRACTION"),
       "relative slowdown of the median that counts (0.05 = 5%)")
      ("alpha", po::value(&o.alpha)->default_value(0.05, "0.05")->value_name("FDR"), "false-discovery rate over all compared points")
      ("bootstrap", po::value(&o.bootstrap)->default_value(1000)->value_name("N"),
       "block-bootstrap resamples for the confidence interval of each ratio (0: none)")
      ("all-env", po::bool_switch(&o.all_environment), "also list per-launch variables (job ids, ports, URIs) that differ")
      ("format", po::value(&format_name)->default_value("text")->value_name("FORMAT"), "output: text, json or markdown");
  po::positional_options_description positional;
  positional.add("base", 1).add("new", 1);
  const auto vm = parse_command("compare", kSummary, options, args, std::cout, &positional);
  if (!vm) return kExitOk;
  if (base_path.empty() || new_path.empty()) throw InputError("compare needs two results files: meshbench compare BASE.h5 NEW.h5");
  if (!(o.threshold >= 0 && o.threshold < 10)) throw InputError("--threshold must be a fraction between 0 and 10 (0.05 = 5%)");
  if (!(o.alpha > 0 && o.alpha < 1)) throw InputError("--alpha must be between 0 and 1");
  if (o.bootstrap < 0) throw InputError("--bootstrap must not be negative");
  const OutputFormat format = parse_output_format(format_name, {OutputFormat::text, OutputFormat::json, OutputFormat::markdown});

  const auto base = results::ResultsFile::open(base_path);
  const auto next = results::ResultsFile::open(new_path);
  const Comparison comparison = compare_runs(base, next, o);
  make_compare_writer(format)->write(comparison, std::cout);
  return comparison.regressed() ? kExitFailure : kExitOk;
}

}  // namespace meshbench::analysis
