// meshbench compare: the regression check between two results files, for people and for CI
// (exit 0: clean, 1: regression, 2: bad input, 3: inconclusive).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "analysis/compare/compare.hpp"
#include "analysis/compare/compare_command.hpp"
#include "analysis/compare/compare_set.hpp"
#include "analysis/compare/compare_writers.hpp"
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
    "\n"
    "Baseline sets: meshbench compare BASE.h5... -- NEW.h5... (or folders of .h5 files) judges every point, every op at\n"
    "one size, every collective, every dimension and the whole run against how it varied between the baseline runs\n"
    "(and between rounds of run --rounds): regressed, improved, unchanged or inconclusive. A whole run slower beyond\n"
    "that noise is a regression. --confirm requires a regression to show again in a second, independent new run.\n"
    "--interleaved, for runs launched alternately (baseline, new, baseline, ...): each new run is judged against the\n"
    "baselines started just before and after it, so that the machine's slow spells, which last several launches, cancel.\n"
    "--history PATH (earlier runs of the baseline configuration, files or folders, at least 5): each point's and family's\n"
    "noise is then its spread between successive history runs, not between the few baselines of this comparison.\n"
    "Every form writes one JSON schema (--format json; docs/compare.schema.json). Exit status: 0 clean, 1 a regression (or\n"
    "wrong results), 2 bad input, 3 inconclusive: the runs cannot support either answer (with two files, a whole run that\n"
    "moved slower beyond --threshold but not beyond the points' scatter). docs/gate.md is the recipe.";

// Stands for "--" among the positional paths: program_options would otherwise drop it.
constexpr const char* kSeparator = "\x1f--";

int compare_sets_command(const std::vector<std::string>& paths, const std::vector<std::string>& history_paths, const SetOptions& o,
                         bool all_environment, OutputFormat format) {
  const auto sep = std::find(paths.begin(), paths.end(), kSeparator);
  std::vector<std::string> base_paths, new_paths, history_files;
  const auto expand = [](auto first, auto last, std::vector<std::string>& out) {
    for (auto it = first; it != last; ++it) {
      for (auto& p : expand_results_paths(*it)) out.push_back(std::move(p));
    }
  };
  if (sep != paths.end()) {
    expand(paths.begin(), sep, base_paths);
    expand(sep + 1, paths.end(), new_paths);
  } else {  // two folders: baselines, then new runs
    expand(paths.begin(), paths.begin() + 1, base_paths);
    expand(paths.begin() + 1, paths.end(), new_paths);
  }
  if (base_paths.empty() || new_paths.empty())
    throw InputError("compare needs baseline runs before -- and new runs after it: meshbench compare BASE.h5... -- NEW.h5...");
  // A set is judged on its rows and rounds: the per-iteration samples and group timings are not
  // read (with 40 history runs they were a third of compare's time).
  const auto open = [](const std::string& p) { return results::ResultsFile::open(p, results::ResultsFile::Reading::rows); };
  std::vector<results::ResultsFile> base, next, history;
  for (const auto& p : base_paths) base.push_back(open(p));
  for (const auto& p : new_paths) next.push_back(open(p));
  expand(history_paths.begin(), history_paths.end(), history_files);
  for (const auto& p : history_files) history.push_back(open(p));
  const SetComparison c = compare_sets(base, next, o, all_environment, history);
  write_set_comparison(c, format, std::cout);
  return exit_status(c.gate_verdict());
}

}  // namespace

int compare_command(const Args& raw_args) {
  std::string format_name;
  std::vector<std::string> paths, history_paths;
  CompareOptions o;
  SetOptions set;
  double alpha = -1;
  Args args = raw_args;
  std::replace(args.begin(), args.end(), std::string("--"), std::string(kSeparator));
  po::options_description options("compare options");
  // clang-format off
  options.add_options()
      ("paths", po::value(&paths)->value_name("FILE"), "BASE.h5 NEW.h5, or BASE... -- NEW... (files or folders) (positional)")
      ("threshold", po::value(&o.threshold)->default_value(0.05, "0.05")->value_name("FRACTION"),
       "relative slowdown of the median that counts (0.05 = 5%)")
      ("alpha", po::value(&alpha)->value_name("FDR"),
       "false-discovery rate over all compared points (default 0.05 for two files; 0.01 per level for baseline sets)")
      ("confirm", po::bool_switch(&set.confirm), "baseline sets: a regression must show again in a second, independent new run")
      ("interleaved", po::bool_switch(&set.interleaved),
       "baseline sets launched alternately (BASE NEW BASE NEW ... BASE): judge each new run against the baselines started just "
       "before and after it")
      ("history", po::value(&history_paths)->composing()->value_name("PATH"),
       "earlier runs of the baseline configuration (files or folders, at least 5, repeatable): each point's and family's noise "
       "from their successive differences; with two files, compares them as a baseline set of one")
      ("bootstrap", po::value(&o.bootstrap)->default_value(1000)->value_name("N"),
       "block-bootstrap resamples for the confidence interval of each ratio (0: none)")
      ("all-env", po::bool_switch(&o.all_environment), "also list per-launch variables (job ids, ports, URIs) that differ")
      ("format", po::value(&format_name)->default_value("text")->value_name("FORMAT"), "output: text, json or markdown");
  // clang-format on
  po::positional_options_description positional;
  positional.add("paths", -1);
  const auto vm = parse_command("compare", kSummary, options, args, std::cout, &positional);
  if (!vm) return kExitOk;
  if (!(o.threshold >= 0 && o.threshold < 10)) throw InputError("--threshold must be a fraction between 0 and 10 (0.05 = 5%)");
  if (alpha != -1 && !(alpha > 0 && alpha < 1)) throw InputError("--alpha must be between 0 and 1");
  if (o.bootstrap < 0) throw InputError("--bootstrap must not be negative");
  const OutputFormat format = parse_output_format(format_name, {OutputFormat::text, OutputFormat::json, OutputFormat::markdown});

  std::error_code ec;
  const bool two_files = paths.size() == 2 && std::find(paths.begin(), paths.end(), kSeparator) == paths.end() &&
                         !std::filesystem::is_directory(paths[0], ec) && !std::filesystem::is_directory(paths[1], ec);
  if (!two_files || !history_paths.empty()) {
    if (paths.size() < 2)
      throw InputError("compare needs two results files (meshbench compare BASE.h5 NEW.h5) or baseline and new runs (BASE... -- NEW...)");
    if (paths.size() > 2 && std::find(paths.begin(), paths.end(), kSeparator) == paths.end()) {
      throw InputError(
          "compare of more than two files needs -- between the baseline runs and the new runs: meshbench compare BASE... -- NEW...");
    }
    set.threshold = o.threshold;
    if (alpha != -1) set.alpha = alpha;
    return compare_sets_command(paths, history_paths, set, o.all_environment, format);
  }
  if (set.interleaved)
    throw InputError("--interleaved needs baseline and new sets launched alternately: meshbench compare --interleaved BASE... -- NEW...");
  if (set.confirm) throw InputError("--confirm needs baseline and new sets: meshbench compare BASE... -- NEW1.h5 NEW2.h5");
  if (alpha != -1) o.alpha = alpha;
  const auto base = results::ResultsFile::open(paths[0]);
  const auto next = results::ResultsFile::open(paths[1]);
  const Comparison comparison = compare_runs(base, next, o);
  make_compare_writer(format)->write(comparison, std::cout);
  return exit_status(comparison.gate_verdict());
}

}  // namespace meshbench::analysis
