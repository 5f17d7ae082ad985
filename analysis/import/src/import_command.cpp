// meshbench import: logs of nccl-tests or the OSU micro-benchmarks as a results file, so that
// report, compare and history read history that predates meshbench.
#include <sys/stat.h>

#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "analysis/import/import_command.hpp"
#include "analysis/import/import_results.hpp"
#include "analysis/import/nccl_tests_log.hpp"
#include "analysis/import/osu_log.hpp"
#include "common/error.hpp"
#include "common/ops/op.hpp"
#include "common/sizes.hpp"
#include "common/strings.hpp"
#include "results/writer.hpp"

namespace meshbench::analysis {

namespace {

constexpr const char* kSummary =
    "Turn logs of nccl-tests (text, or the JSON of -J) or of the OSU micro-benchmarks into one results file with\n"
    "the same /measurements columns as 'meshbench run' writes, and the provenance the logs hold (NCCL version,\n"
    "devices, hosts, ranks, command line). Several logs, and several runs appended in one log, go into one file\n"
    "when they share a run shape (ranks and hosts); a point printed more than once becomes rounds of that point.\n"
    "Lines around the tool's output (a shell prompt and the command, prose pasted with the log) are skipped and\n"
    "counted; the binary a command line names gives the collective when the log's header does not. With --strict\n"
    "such a line is refused with its file and line number, and no file is written.";

// The log file's modification time, ISO-8601 UTC: when the run ended, for logs that print no time.
std::string modified_at(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  std::tm tm{};
  gmtime_r(&st.st_mtime, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// "all_reduce 8 B-128 MiB (in- and out-of-place)", one per op.
std::string points_in_brief(const std::vector<results::PointRecord>& points) {
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> range;
  std::map<std::string, std::set<std::string>> timings;
  for (const auto& p : points) {
    auto [it, fresh] = range.try_emplace(p.row.point.op, p.row.point.bytes, p.row.point.bytes);
    it->second.first = std::min(it->second.first, p.row.point.bytes);
    it->second.second = std::max(it->second.second, p.row.point.bytes);
    timings[p.row.point.op].insert(p.row.point.timing);
  }
  return join(range, ", ", [&](const auto& r) {
    return r.first + " " + format_bytes(r.second.first) + "-" + format_bytes(r.second.second) +
           (timings[r.first].size() > 1 ? " (out-of-place and in-place)" : "");
  });
}

// A skipped line as --verbose lists it: quoted, cut at 100 characters.
std::string quote_cut(const std::string& text) {
  // Appended piece by piece: GCC 12 warns (-Warray-bounds, falsely) on the one-expression form once inlined.
  std::string out = "'";
  out.append(text, 0, text.size() > 100 ? 97 : text.size());
  if (text.size() > 100) out += "...";
  out += "'";
  return out;
}

struct ImportSummary {
  std::string tool, out, when, when_from;
  bool verbose = false;
};

// What import tells the user: how many points went where, the run's ranks and start, the versions
// the logs name, and the lines it skipped.
void print_summary(const ImportedResults& imported, const std::vector<ImportedLog>& parsed, const ImportSummary& what) {
  const std::string& tool = what.tool;
  const std::string& out = what.out;
  const std::string& when = what.when;
  const std::string& when_from = what.when_from;
  const bool verbose = what.verbose;
  int runs = 0, skipped = 0;
  for (const auto& l : parsed) {
    runs += l.runs;
    skipped += l.skipped;
  }
  const auto& run = imported.header.run;
  std::cout << "meshbench import: " << imported.points.size() << " points from " << parsed.size() << " log(s), " << runs << " run(s), into "
            << out << "\n"
            << "  ranks: " << run.world_size;
  if (!run.hosts.empty()) std::cout << " on " << join(std::set(run.hosts.begin(), run.hosts.end()), ",");
  std::cout << "\n  points: " << points_in_brief(imported.points) << "\n  started at " << when << " (from " << when_from << ")\n";
  for (const auto& [k, v] : imported.header.provenance.versions) {
    if (k != "meshbench" && k != "imported_from") std::cout << "  " << k << ": " << v << "\n";
  }
  std::cout << "  lines skipped: " << skipped << " that are not " << (tool == "osu" ? "OSU" : "nccl-tests") << " output"
            << (skipped == 0 ? ""
                : verbose    ? " (--strict refuses them)"
                             : " (--verbose lists them, --strict refuses them)")
            << "\n";
  if (verbose) {
    for (const auto& l : parsed) {
      for (const auto& [line, text] : l.skipped_first) std::cout << "    " << l.path << ":" << line << ": " << quote_cut(text) << "\n";
      if (l.skipped > static_cast<int>(l.skipped_first.size()))
        std::cout << "    " << l.path << ": " << l.skipped - static_cast<int>(l.skipped_first.size()) << " more\n";
    }
  }
  for (const auto& n : imported.notes) std::cout << "  note: " << n << "\n";
}

}  // namespace

int import_command(const Args& args) {
  if (!args.empty() && args.front() == "megatron-log") return import_megatron_log(Args(args.begin() + 1, args.end()));
  if (args.empty() || (args.front() != "nccl-tests" && args.front() != "osu" && args.front() != "--help" && args.front() != "-h")) {
    throw InputError(
        "import needs the tool the logs are from: meshbench import nccl-tests|osu LOG... --out FILE.h5, or meshbench import megatron-log "
        "LOG");
  }
  const std::string tool = args.front() == "osu" ? "osu" : "nccl-tests";
  std::vector<std::string> logs;
  std::string out, started_at;
  ImportOptions options;
  bool force = false, verbose = false;
  po::options_description desc("import options");
  // clang-format off
  desc.add_options()
      ("logs", po::value(&logs)->multitoken()->value_name("LOG"), "log files (positional)")
      ("out", po::value(&out)->default_value("")->value_name("FILE.h5"), "the results file to write (required)")
      ("force", po::bool_switch(&force), "replace --out if it exists")
      ("op", po::value(&options.op)->default_value("")->value_name("OP"),
       "nccl-tests: the collective of logs that do not name their binary (all_reduce, all_gather, reduce_scatter, all_to_all, send_recv)")
      ("ranks", po::value(&options.ranks)->default_value(0)->value_name("N"),
       "how many ranks ran, for OSU collectives (OSU does not print it): else the launch command in the log "
       "(mpirun -np N, srun -n N); nccl-tests counts its '#  Rank' lines")
      ("started-at", po::value(&started_at)->default_value("")->value_name("TIME"),
       "the run's start (ISO-8601), for history's order; default: the log's own time, else the first log's modification time")
      ("strict", po::bool_switch(&options.strict),
       "refuse a line that is not the tool's output (a prompt, a command, prose) instead of skipping it")
      ("verbose", po::bool_switch(&verbose), "list the first lines skipped in each log");
  // clang-format on
  po::positional_options_description positional;
  positional.add("logs", -1);
  const Args rest(args.begin() + (args.front() == "--help" || args.front() == "-h" ? 0 : 1), args.end());
  const auto vm = parse_command("import nccl-tests|osu", kSummary, desc, rest, std::cout, &positional);
  if (!vm) return kExitOk;
  if (logs.empty()) throw InputError("import needs log files: meshbench import " + tool + " LOG... --out FILE.h5");
  if (!options.op.empty() && (!ops::parse_op(options.op) || options.op == "all_to_allv"))
    throw InputError(
        "--op '" + options.op +
        "' is not an op nccl-tests logs are imported as; give all_reduce, all_gather, reduce_scatter, all_to_all or send_recv");
  if (options.ranks < 0) throw InputError("--ranks must be a positive number of ranks");
  results::check_output_path(out, force, false);

  std::vector<ImportedLog> parsed;
  for (const auto& path : logs) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("cannot read log '" + path + "'; give existing files");
    parsed.push_back(tool == "osu" ? parse_osu_log(in, path, options) : parse_nccl_tests_log(in, path, options));
  }
  std::string when = started_at;
  std::string when_from = "--started-at";
  if (when.empty()) {
    when = parsed.front().started_at;
    when_from = "the log";
  }
  if (when.empty()) {
    when = modified_at(logs.front());
    when_from = "the modification time of " + logs.front() + " (give --started-at to set it)";
  }
  const ImportedResults imported = imported_results(parsed, "meshbench import " + join(args, " "), when);
  results::write_results_file(out, imported.header, imported.points, force);

  print_summary(imported, parsed, {tool, out, when, when_from, verbose});
  return kExitOk;
}

}  // namespace meshbench::analysis
