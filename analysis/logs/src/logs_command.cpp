#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "analysis/logs/log_merge.hpp"
#include "analysis/logs/logs_command.hpp"
#include "analysis/logs/nccl_log.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {

namespace {

// Log lines may hold bytes that are not UTF-8: replace them in JSON rather than fail.
constexpr auto kReplaceInvalidUtf8 = nlohmann::json::error_handler_t::replace;

constexpr const char* kUsage =
    "usage: meshbench logs summary FILE... [--format text|json]\n"
    "       meshbench logs merge FILE... [--format text|json] [--boot-time TIME] [--year YYYY]\n\n"
    "summary: what NCCL_DEBUG=INFO logs say: NCCL version, net plugin, provider, transports per\n"
    "         communicator (P2P, SHM, NET, NET/GDRDMA), NVLS, channels, warnings.\n"
    "merge:   several logs (NCCL, dmesg, journalctl, meshbench) in one time-ordered view, each line\n"
    "         tagged with its file; lines without a timestamp inherit the previous line's time ('~').\n";

std::ifstream open_log(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read log '" + path + "'; give existing files");
  return in;
}

// A file's tag: its name, or the whole path where two files share a name.
std::vector<std::string> labels(const std::vector<std::string>& files) {
  std::map<std::string, int> count;
  for (const auto& f : files) ++count[std::filesystem::path(f).filename().string()];
  std::vector<std::string> out;
  for (const auto& f : files) {
    const std::string name = std::filesystem::path(f).filename().string();
    out.push_back(count[name] > 1 ? f : name);
  }
  return out;
}

std::int64_t parse_boot_time(const std::string& text) {
  if (auto t = parse_log_timestamp(text, {})) {
    if (t->format == "iso") return t->ns;
  }
  try {
    std::size_t used = 0;
    const double seconds = std::stod(text, &used);
    if (used == text.size()) return static_cast<std::int64_t>(seconds * 1e9);
  } catch (const std::exception&) {
  }
  throw InputError("--boot-time '" + text + "' is neither ISO-8601 (2025-01-02T13:45:01Z) nor epoch seconds");
}

}  // namespace

int logs_command(const Args& args) {
  if (args.empty() || args.front() == "--help" || args.front() == "-h") {
    (args.empty() ? std::cerr : std::cout) << kUsage;
    return args.empty() ? kExitBadInput : kExitOk;
  }
  const std::string& action = args.front();
  if (action != "summary" && action != "merge") {
    throw InputError("unknown logs action '" + action + "'; use 'meshbench logs summary' or 'meshbench logs merge'");
  }
  po::options_description opts("logs " + action + " options");
  std::string format;
  std::vector<std::string> files;
  std::string boot_time;
  int year = 0;
  // clang-format off
  opts.add_options()
      ("format", po::value(&format)->default_value("text"), "output: text or json")
      ("files", po::value(&files)->multitoken(), "log files (positional)");
  // clang-format on
  if (action == "merge") {
    // clang-format off
    opts.add_options()
        ("boot-time", po::value(&boot_time)->default_value(""),
         "boot time for dmesg's [seconds] lines (ISO-8601 or epoch seconds); default: this machine's")
        ("year", po::value(&year)->default_value(0), "year for syslog-style lines without one; default: this year");
    // clang-format on
  }
  po::positional_options_description positional;
  positional.add("files", -1);
  auto vm = parse_command("logs " + action, action == "summary" ? "Summarise NCCL_DEBUG=INFO logs." : "Merge logs by time.", opts,
                          Args(args.begin() + 1, args.end()), std::cout, &positional);
  if (!vm) return kExitOk;
  if (files.empty()) throw InputError("no log file given; usage: meshbench logs " + action + " FILE...");
  const OutputFormat fmt = parse_output_format(format, {OutputFormat::text, OutputFormat::json});

  if (action == "summary") {
    NcclLogParser parser;
    for (const auto& f : files) {
      auto in = open_log(f);
      parser.add(in);
    }
    const NcclLogSummary summary = parser.finish();
    if (fmt == OutputFormat::json) {
      std::cout << to_json(summary).dump(2, ' ', false, kReplaceInvalidUtf8) << "\n";
    } else {
      print_nccl_summary(summary, std::cout);
    }
    return kExitOk;
  }

  MergeOptions options;
  if (!boot_time.empty()) options.boot_time_ns = parse_boot_time(boot_time);
  if (year != 0) options.year = year;
  const auto tags = labels(files);
  std::vector<std::vector<MergedLine>> per_file;
  for (std::size_t i = 0; i < files.size(); ++i) {
    auto in = open_log(files[i]);
    per_file.push_back(read_log_lines(in, tags[i], options));
    const auto& lines = per_file.back();
    if (!lines.empty() && !lines.front().time_ns) {
      std::cerr << "meshbench logs merge: " << files[i] << " has no timestamp; its lines are listed last\n";
    }
  }
  const auto merged = merge_logs(per_file);
  if (fmt == OutputFormat::json) {
    std::cout << to_json(merged).dump(2, ' ', false, kReplaceInvalidUtf8) << "\n";
  } else {
    print_merged(merged, std::cout);
  }
  return kExitOk;
}

}  // namespace meshbench::analysis
