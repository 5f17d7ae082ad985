// meshbench compare: the regression check of new runs against baseline runs, for people and for CI
// (exit 0: clean, 1: regression, 2: bad input, 3: inconclusive).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "analysis/compare/compare.hpp"
#include "analysis/compare/compare_command.hpp"
#include "analysis/compare/compare_writers.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {

namespace {

constexpr const char* kSummary =
    "Compare baseline runs with new runs (before and after a driver, NCCL, libfabric or EFA upgrade): meshbench compare\n"
    "BASE.h5 NEW.h5, or BASE.h5... -- NEW.h5... (files or folders of .h5 files). Points are matched by mapping structure,\n"
    "dimension, op, backend, timing and size. Every point, every op at one size, every collective, every dimension and the\n"
    "whole run is judged against its noise: regressed (slower than --threshold and beyond the noise), improved, unchanged or\n"
    "inconclusive. The noise comes from the baseline runs (and rounds of run --rounds); with one run a side, from how the other\n"
    "points moved and each point's samples; with --history PATH (earlier runs of the baseline configuration, at least 5), from\n"
    "their successive differences. --interleaved, for runs launched alternately (baseline, new, baseline, ...): each new run is\n"
    "judged against the baselines started just before and after it. --confirm: a regression must show again in a second new\n"
    "run. Provenance changes come first. One JSON schema for every form (--format json; docs/compare.schema.json). Exit\n"
    "status: 0 clean, 1 a regression (or wrong results), 2 bad input, 3 inconclusive: the runs cannot support either answer.\n"
    "docs/gate.md is the recipe.";

constexpr const char* kSeparator = "--";

// The baselines before --, the new runs after it (or two paths: a baseline and a new run, each a
// file or a folder of them).
std::pair<std::vector<std::string>, std::vector<std::string>> split_paths(const std::vector<std::string>& paths) {
  const auto sep = std::find(paths.begin(), paths.end(), kSeparator);
  if (sep == paths.end() && paths.size() > 2) {
    throw InputError(
        "compare of more than two files needs -- between the baseline runs and the new runs: meshbench compare BASE... -- NEW...");
  }
  if (sep == paths.end() && paths.size() < 2)
    throw InputError("compare needs two results files (meshbench compare BASE.h5 NEW.h5) or baseline and new runs (BASE... -- NEW...)");
  const auto expand = [](auto first, auto last) {
    std::vector<std::string> out;
    for (auto it = first; it != last; ++it) {
      for (auto& p : expand_results_paths(*it)) out.push_back(std::move(p));
    }
    return out;
  };
  if (sep == paths.end()) return {expand(paths.begin(), paths.begin() + 1), expand(paths.begin() + 1, paths.end())};
  return {expand(paths.begin(), sep), expand(sep + 1, paths.end())};
}

}  // namespace

int compare_command(const Args& args) {
  std::string format_name;
  std::vector<std::string> paths, history_paths;
  JudgeOptions o;
  po::options_description options("compare options");
  // clang-format off
  options.add_options()
      ("paths", po::value(&paths)->value_name("FILE"), "BASE.h5 NEW.h5, or BASE... -- NEW... (files or folders) (positional)")
      ("threshold", po::value(&o.threshold)->default_value(o.threshold, "0.05")->value_name("FRACTION"),
       "relative slowdown of the median that counts (0.05 = 5%; a speed-up counts from 1/1.05)")
      ("alpha", po::value(&o.alpha)->default_value(o.alpha, "0.01")->value_name("RATE"),
       "false-alarm rate of the whole verdict, split evenly over the levels judged (Benjamini-Hochberg within each)")
      ("confirm", po::bool_switch(&o.confirm), "a regression must show again in a second, independent new run")
      ("interleaved", po::bool_switch(&o.interleaved),
       "baselines and new runs launched alternately (BASE NEW BASE NEW ... BASE): judge each new run against the baselines started "
       "just before and after it")
      ("history", po::value(&history_paths)->composing()->value_name("PATH"),
       "earlier runs of the baseline configuration (files or folders, at least 5, repeatable): each point's and family's noise "
       "from their successive differences")
      ("bootstrap", po::value(&o.bootstrap)->default_value(o.bootstrap)->value_name("N"),
       "one run a side: block-bootstrap resamples for the confidence interval of each point's ratio (0: none)")
      ("all-env", po::bool_switch(&o.all_environment), "also list per-launch variables (job ids, ports, URIs) that differ")
      ("format", po::value(&format_name)->default_value("text")->value_name("FORMAT"), "output: text, json or markdown");
  // clang-format on
  po::positional_options_description positional;
  positional.add("paths", -1);
  const auto vm = parse_command("compare", kSummary, options, args, std::cout, &positional, true);
  if (!vm) return kExitOk;
  if (!(o.threshold >= 0 && o.threshold < 10)) throw InputError("--threshold must be a fraction between 0 and 10 (0.05 = 5%)");
  if (!(o.alpha > 0 && o.alpha < 1)) throw InputError("--alpha must be between 0 and 1");
  if (o.bootstrap < 0) throw InputError("--bootstrap must not be negative");
  const OutputFormat format = parse_output_format(format_name, {OutputFormat::text, OutputFormat::json, OutputFormat::markdown});

  const auto [base_paths, new_paths] = split_paths(paths);
  if (base_paths.empty() || new_paths.empty())
    throw InputError("compare needs baseline runs before -- and new runs after it: meshbench compare BASE.h5... -- NEW.h5...");
  std::vector<std::string> history_files;
  for (const auto& h : history_paths) {
    for (auto& p : expand_results_paths(h)) history_files.push_back(std::move(p));
  }
  // One run a side without a history is judged by its points' samples too; otherwise a run is
  // judged on its rows and rounds, and its samples are not read (with 40 history runs they were a
  // third of compare's time).
  const bool one_a_side = base_paths.size() == 1 && new_paths.size() == 1 && history_files.empty();
  const auto reading = one_a_side ? results::ResultsFile::Reading::everything : results::ResultsFile::Reading::rows;
  const auto open = [reading](const std::vector<std::string>& files) {
    std::vector<results::ResultsFile> out;
    for (const auto& p : files) out.push_back(results::ResultsFile::open(p, reading));
    return out;
  };
  const Comparison c = compare_sets(open(base_paths), open(new_paths), o, open(history_files));
  make_compare_writer(format)->write(c, std::cout);
  return exit_status(c.gate_verdict());
}

}  // namespace meshbench::analysis
