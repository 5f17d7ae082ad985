// nccl-tests' text output, line by line. Its printing (src/util.cu in nccl-tests) gives: the
// "# nThread .." header, "#  Rank .." device lines, a two-line column header whose names say
// which columns a row has, one row per size, and a footer ("# Out of bounds values", "# Avg bus
// bandwidth"). Versions since 2.14 add "# nccl-tests version .." and "# Collective test
// starting: <binary>"; NCCL_DEBUG=INFO interleaves NCCL's own lines.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "analysis/import/nccl_tests_log.hpp"
#include "analysis/import/src/log_text.hpp"
#include "analysis/import/src/nccl_tests_text.hpp"
#include "analysis/logs/nccl_log.hpp"
#include "common/nccl_version.hpp"
#include "common/strings.hpp"
#include "results/environment.hpp"

namespace meshbench::analysis::detail {

namespace {

constexpr const char* kImported = "all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf or sendrecv_perf";

// What a table's column header says a row holds.
struct Columns {
  std::vector<std::string> preamble;               // size count type redop root: those present
  std::vector<std::vector<std::string>> variants;  // out-of-place, then in-place: time algbw busbw #wrong [i_min ...]
  bool timestamp = false;                          // -S: a date and a time end the row
  int line = 0;
  std::size_t fields(std::size_t variant_count) const {
    std::size_t n = preamble.size() + (timestamp ? 2 : 0);
    for (std::size_t v = variants.size() - variant_count; v < variants.size(); ++v) n += variants[v].size();
    return n;
  }
};

std::optional<Columns> column_header(std::string_view body, int line) {
  const auto t = tokens(body);
  if (t.empty() || t.front() != "size") return std::nullopt;
  Columns c;
  c.line = line;
  std::size_t i = 0;
  for (; i < t.size() && t[i] != "time" && t[i] != "cputime"; ++i) c.preamble.emplace_back(t[i]);
  if (i == t.size()) return std::nullopt;
  for (; i < t.size(); ++i) {
    if (t[i] == "timestamp" && i + 1 == t.size()) {
      c.timestamp = true;
      break;
    }
    if (t[i] == "time" || t[i] == "cputime") c.variants.emplace_back();
    c.variants.back().emplace_back(t[i]);
  }
  return c;
}

// "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20
// agg iters: 1 validation: 1 graph: 0": the numbers after their names.
struct Config {
  int threads = 1, gpus = 1, warmup = 0, iters = 0, agg = 1;
  bool validation = true;
};
std::optional<Config> config_header(std::string_view body) {
  const auto t = tokens(body);
  if (t.empty() || t.front() != "nThread") return std::nullopt;
  Config c;
  const auto number = [&](std::size_t i) -> int {
    if (i >= t.size()) return -1;
    const auto v = to_i64(t[i]);
    return v && *v >= 0 && *v < (1 << 30) ? static_cast<int>(*v) : -1;
  };
  for (std::size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] == "nThread") c.threads = number(i + 1);
    if (t[i] == "nGpus") c.gpus = number(i + 1);
    if (t[i] == "validation:") c.validation = number(i + 1) != 0;
    if (t[i] == "iters:") {
      const std::string_view before = i > 0 ? t[i - 1] : std::string_view();
      (before == "warmup" ? c.warmup : before == "agg" ? c.agg : c.iters) = number(i + 1);
    }
  }
  if (c.threads < 1 || c.gpus < 1 || c.warmup < 0 || c.iters < 0 || c.agg < 1) return std::nullopt;
  return c;
}

// "#  Rank  0 Group  0 Pid  1234 on host-1 device  0 [0000:53:00] NVIDIA H100 80GB HBM3"; older
// versions print no Group and the bus id as "[0x53]".
struct RankLine {
  int rank = 0;
  std::string host, device;
};
std::optional<RankLine> rank_line(std::string_view body) {
  const auto t = tokens(body);
  if (t.size() < 2 || t[0] != "Rank") return std::nullopt;
  std::size_t i = 2;
  if (i < t.size() && t[i] == "Group") i += 2;
  if (i + 6 > t.size() || t[i] != "Pid" || t[i + 2] != "on" || t[i + 4] != "device") return std::nullopt;
  const auto rank = to_i64(t[1]);
  if (!rank || *rank < 0 || *rank >= (1 << 24)) return std::nullopt;
  RankLine r;
  r.rank = static_cast<int>(*rank);
  r.host = std::string(t[i + 3]);
  std::vector<std::string_view> model(t.begin() + static_cast<long>(std::min(t.size(), i + 7)), t.end());
  r.device = join(model, " ");
  return r;
}

// One run of a binary, as the file goes.
struct Run {
  int first_line = 0;
  std::string program;
  int program_line = 0;
  std::optional<Config> config;
  std::map<int, RankLine> ranks;
  bool ranks_cut = false;
  std::optional<Columns> columns;
  bool in_table = false;
  std::string command_program;  // the binary of the command line its op was taken from
  std::vector<LoggedPoint> points;
  bool started() const { return config || columns || !points.empty(); }
};

struct Parser {
  const std::string& path;
  const ImportOptions& options;
  ImportedLog log;
  std::string redop;  // the one reduction the log's rows may have
  std::set<std::string> nccl_versions, cuda_versions;
  Run run;
  // The binary the latest command line in the log named ("$ mpirun ... ./build/alltoall_perf"),
  // for runs whose header does not say; skipped lines only, so never under --strict.
  std::string command_program;
  int command_line = 0;
  // NCCL_* variables: those NCCL's own lines say it read ("NCCL_ALGO set by environment to Ring"),
  // and those the command lines that launch the benchmark set ("-x NCCL_ALGO=Ring"); NCCL's word
  // goes first.
  std::map<std::string, std::string> nccl_environment, command_environment;

  void finish_run() {
    if (!run.started()) return;
    if (run.points.empty())
      refuse(path, run.first_line, "this run of nccl-tests printed no result rows (did it fail?); remove it or rerun");
    std::vector<std::string> hosts, devices;
    int ranks = options.ranks;
    if (!run.ranks.empty() && !run.ranks_cut) {
      ranks = static_cast<int>(run.ranks.size());
      if (run.ranks.rbegin()->first != ranks - 1)
        refuse(path, run.first_line,
               "its '#  Rank' lines skip ranks (highest " + std::to_string(run.ranks.rbegin()->first) + " of " + std::to_string(ranks) +
                   "); give the whole log");
      for (const auto& [r, l] : run.ranks) {
        hosts.push_back(l.host);
        devices.push_back(l.device);
      }
    }
    if (ranks <= 0)
      refuse(path, run.first_line,
             run.ranks_cut ? "the device list is cut short (nccl-tests stops it at 2,048 characters a process); give --ranks N"
                           : "no '#  Rank' device lines, so the log does not say how many ranks ran; give --ranks N");
    if (log.runs == 0) {
      log.ranks = ranks;
      log.hosts = hosts;
      log.devices = devices;
    } else if (ranks != log.ranks || hosts != log.hosts) {
      refuse(path, run.first_line,
             "this run (" + std::to_string(ranks) + " ranks on " +
                 (hosts.empty() ? "unnamed hosts" : join(std::set(hosts.begin(), hosts.end()), ",")) +
                 ") is of another shape than the first in the file; split the file and import each shape into its own results file");
    }
    if (log.program.empty()) log.program = run.program.empty() ? run.command_program : run.program;
    for (auto& p : run.points) {
      p.run = log.runs;
      log.points.push_back(std::move(p));
    }
    ++log.runs;
    run = Run{};
  }

  // The collective of the current run: the binary's name, else --op, else the binary a command
  // line in the log names, else the file's name.
  std::string op_for_row(int line) {
    if (!run.program.empty()) {
      std::string op = op_of_nccl_tests_program(run.program);
      if (op.empty())
        refuse(path, run.program_line, run.program + " measures a collective meshbench does not; import logs of " + kImported);
      if (!options.op.empty() && options.op != op)
        refuse(path, run.program_line, "the log is of " + run.program + " but --op says " + options.op + "; drop --op");
      return op;
    }
    if (!options.op.empty()) return options.op;
    if (!command_program.empty()) {
      std::string op = op_of_nccl_tests_program(command_program);
      if (op.empty())
        refuse(path, command_line, command_program + " measures a collective meshbench does not; import logs of " + kImported);
      run.command_program = command_program;
      return op;
    }
    const std::string name = std::filesystem::path(path).filename().string();
    for (const std::string binary : {"all_reduce_perf", "all_gather_perf", "reduce_scatter_perf", "alltoall_perf", "sendrecv_perf"}) {
      if (name.find(binary) != std::string::npos) return op_of_nccl_tests_program(binary);
    }
    refuse(path, line,
           "the log does not name its collective (no '# Collective test starting' line, no command line naming a binary, nor a binary's "
           "name in the file name); give --op "
           "all_reduce|all_gather|reduce_scatter|all_to_all|send_recv");
  }

  void row(std::string_view text, int line) {
    const Columns& c = *run.columns;
    const auto t = tokens(text);
    std::size_t variants = c.variants.size();
    if (t.size() != c.fields(variants)) {
      // A row of in-place only (nccl-tests leaves out-of-place blank when it cannot run it).
      if (variants == 2 && t.size() == c.fields(1)) variants = 1;
      else
        refuse(path, line,
               "a result row of " + std::to_string(t.size()) + " fields where the column header at line " + std::to_string(c.line) +
                   " names " + std::to_string(c.fields(variants)) + " (" + quoted(text) + "); give the log as nccl-tests printed it");
    }
    LoggedPoint base;
    base.op = op_for_row(line);
    base.line = line;
    base.iters =
        run.config
            ? static_cast<int>(std::min<std::int64_t>(std::int64_t{run.config->iters} * run.config->agg, std::numeric_limits<int>::max()))
            : 0;
    base.warmup = run.config ? run.config->warmup : 0;
    for (std::size_t i = 0; i < c.preamble.size(); ++i) {
      const std::string& name = c.preamble[i];
      if (name == "size") {
        const auto v = to_u64(t[i]);
        if (!v) refuse(path, line, "size " + quoted(t[i]) + " is not a byte count; give the log as nccl-tests printed it");
        base.bytes = *v;
      } else if (name == "type") {
        base.dtype = dtype_of_nccl_type(t[i]);
        if (base.dtype.empty()) refuse(path, line, "unknown data type " + quoted(t[i]) + "; nccl-tests' types are int8 .. f8e5m2");
      } else if (name == "redop") {
        if (redop.empty()) redop = std::string(t[i]);
        else if (t[i] != redop)
          refuse(path, line,
                 "a second reduction '" + std::string(t[i]) + "' after '" + redop +
                     "' (nccl-tests -o all); a results file keeps one reduction per op: rerun with one -o, or split the log");
      }
    }
    if (base.dtype.empty()) base.dtype = "float32";  // nccl-tests' default type, for tables without a type column
    std::size_t at = c.preamble.size();
    for (std::size_t v = c.variants.size() - variants; v < c.variants.size(); ++v) {
      LoggedPoint p = base;
      p.timing = v == 0 ? "batched" : "batched_in_place";
      for (const auto& name : c.variants[v]) {
        const std::string_view field = t[at++];
        if (name == "time" || name == "cputime") {
          const auto x = to_double(field);
          if (!x || *x < 0)
            refuse(path, line, "time " + quoted(field) + " is not a number of microseconds; give the log as nccl-tests printed it");
          p.time_us = *x;
        } else if (name == "#wrong" || name == "error") {
          if (field == "N/A") continue;
          const auto x = to_double(field);
          // A count past int64 (found by fuzzing: 5.6e32 cast to an integer) is no count either.
          if (!x || *x < 0 || (name == "#wrong" && *x >= 9e18))
            refuse(path, line, name + " " + quoted(field) + " is neither a count nor N/A; give the log as nccl-tests printed it");
          // Older versions' error column is the largest error, not a count: any error is at least one wrong element.
          p.wrong = name == "#wrong" ? static_cast<std::int64_t>(*x) : (*x > 0 ? 1 : 0);
        } else if (name == "i_min" || name == "i_max" || name == "i_p99") {
          const auto x = to_double(field);
          if (!x) refuse(path, line, name + " " + quoted(field) + " is not a number; give the log as nccl-tests printed it");
          (name == "i_min" ? p.min_us : name == "i_max" ? p.max_us : p.p99_us) = *x;
        }
      }
      run.points.push_back(std::move(p));
    }
    if (c.timestamp && log.started_at.empty()) log.started_at = std::string(t[t.size() - 2]) + "T" + std::string(t.back());
  }

  void comment(std::string_view body, int line) {
    const auto t = tokens(body);
    if (t.empty()) return;
    if (t.size() >= 4 && t[0] == "nccl-tests" && t[1] == "version") {
      log.versions.emplace_back("nccl-tests", std::string(t[2]));
      for (const auto& f : t) {
        if (starts_with(f, "nccl-library=")) {
          if (const auto code = to_i64(f.substr(13))) nccl_versions.insert(nccl_version_of_code(static_cast<long>(*code)));
        }
      }
      return;
    }
    if (t.size() >= 4 && t[0] == "Collective" && t[1] == "test" && t[2] == "starting:") {
      finish_run();
      run.first_line = run.program_line = line;
      run.program = std::filesystem::path(std::string(t[3])).filename().string();
      return;
    }
    if (t[0] == "nThread") {
      const auto c = config_header(body);
      if (!c)
        refuse(path, line, "an nThread header nccl-tests would not print (" + quoted(body) + "); give the log as nccl-tests printed it");
      if (run.config || run.columns || !run.points.empty()) finish_run();
      if (run.first_line == 0) run.first_line = line;
      run.config = c;
      return;
    }
    if (t[0] == "Rank") {
      const auto r = rank_line(body);
      if (!r) {
        if (body.find("...") != std::string_view::npos) {
          run.ranks_cut = true;
          return;
        }
        refuse(path, line, "a device line nccl-tests would not print (" + quoted(body) + "); give the log as nccl-tests printed it");
      }
      if (!run.ranks.emplace(r->rank, *r).second)
        refuse(path, line, "rank " + std::to_string(r->rank) + " is listed twice; give one run's device lines once");
      return;
    }
    if (t[0] == "size") {
      auto c = column_header(body, line);
      if (!c || c->variants.empty() || c->variants.size() > 2 ||
          std::find(c->preamble.begin(), c->preamble.end(), "size") == c->preamble.end())
        refuse(path, line, "a column header nccl-tests would not print (" + quoted(body) + "); give the log as nccl-tests printed it");
      if (run.columns && !run.points.empty()) finish_run();
      if (run.first_line == 0) run.first_line = line;
      run.columns = std::move(c);
      run.in_table = true;
      return;
    }
    if (t[0] == "Out" || t[0] == "Avg" || (t[0] == "Collective" && t.size() > 2 && t[2] == "concluded:")) run.in_table = false;
    if (t[0] == "OSU") refuse(path, line, "this is an OSU micro-benchmarks log; import it with 'meshbench import osu'");
    // A root shell's prompt: "# mpirun -np 8 ./build/all_reduce_perf -b 8 -e 128M".
    if (!options.strict && t[0] != "Collective") note_command(body, line);
    // Everything else after '#' is nccl-tests' commentary: the units line, blocking and
    // memory notes, "Reducing maxBytes", the JSON file's name.
  }

  void note_command(std::string_view text, int line) {
    std::string program = program_on_command_line(text, "_perf");
    if (program.empty()) return;
    for (auto& [name, value] : environment_on_command_line(text, "_perf")) command_environment[name] = std::move(value);
    command_program = std::move(program);
    command_line = line;
  }

  void line(std::string_view text, int number, bool& launcher_block) {
    const std::string_view bare = strip_launcher_prefix(text);
    const std::string_view t = options.strict ? trim(bare) : unquoted(bare);
    if (t.empty()) return;
    if (t.front() == '#') return comment(t.substr(1), number);
    if (is_launcher_line(t, launcher_block)) return;
    if (const auto nccl = parse_nccl_line(t)) {
      const std::string_view message = nccl->message;
      if (starts_with(message, "NCCL version ")) {
        const auto [version, cuda] = nccl_version_of(message);
        if (!version.empty()) nccl_versions.insert(version);
        if (!cuda.empty()) cuda_versions.insert(cuda);
      }
      constexpr std::string_view kSet = " set by environment to ";
      if (const auto at = message.find(kSet); starts_with(message, "NCCL_") && at != std::string_view::npos)
        nccl_environment[std::string(message.substr(0, at))] = std::string(trim(message.substr(at + kSet.size())));
      return;
    }
    // In a table, a line that starts with a size is a row (refused when cut short); under
    // --strict every line there is.
    if (run.in_table && run.columns && (options.strict || to_u64(tokens(t).front()))) return row(t, number);
    if (!options.strict) note_command(t, number);
    skip_line(log, options, number, t,
              "unrecognised line " + quoted(t) + ": not nccl-tests output; give the output of " + kImported + " (text, or the JSON of -J)");
  }
};

}  // namespace

ImportedLog parse_nccl_tests_text(std::istream& in, const std::string& path, const ImportOptions& options) {
  Parser p{path, options, {}, {}, {}, {}, {}, {}, 0, {}, {}};
  p.log.tool = "nccl-tests";
  p.log.path = path;
  std::string text;
  int number = 0;
  bool launcher_block = false;
  while (std::getline(in, text)) p.line(text, ++number, launcher_block);
  p.finish_run();
  if (p.log.runs == 0 && !p.log.skipped_first.empty())
    refuse(path, p.log.skipped_first.front().first,
           "unrecognised line " + detail::quoted(p.log.skipped_first.front().second) + ", and no nccl-tests result table in " +
               std::to_string(number) + " line(s); give the output of " + kImported + " (text, or the JSON of -J)");
  if (p.log.runs == 0)
    refuse(path, std::max(number, 1),
           "no nccl-tests result table in " + std::to_string(number) + " line(s); give the output of " + kImported);
  if (!p.nccl_versions.empty()) p.log.versions.emplace_back("nccl", join(p.nccl_versions, ", "));
  if (!p.cuda_versions.empty()) p.log.versions.emplace_back("cuda", join(p.cuda_versions, ", "));
  std::vector<std::string> environment;
  for (const auto& [name, value] : p.command_environment) {
    if (!p.nccl_environment.contains(name)) environment.push_back(name + "=" + value);
  }
  for (const auto& [name, value] : p.nccl_environment) environment.push_back(name + "=" + value);
  p.log.environment = results::recorded_environment(environment);
  return p.log;
}

std::string dtype_of_nccl_type(std::string_view type) {
  static const std::map<std::string_view, std::string_view> kTypes = {
      {"int8", "int8"},      {"uint8", "uint8"},       {"int32", "int32"},        {"uint32", "uint32"},
      {"int64", "int64"},    {"uint64", "uint64"},     {"half", "float16"},       {"float", "float32"},
      {"double", "float64"}, {"bfloat16", "bfloat16"}, {"f8e4m3", "float8_e4m3"}, {"f8e5m2", "float8_e5m2"},
  };
  const auto it = kTypes.find(type);
  return it == kTypes.end() ? "" : std::string(it->second);
}

std::pair<std::string, std::string> nccl_version_of(std::string_view message) {
  const auto release = nccl::parse_version(message);
  if (!release) return {};
  const auto t = tokens(message);
  const std::string_view v = t[2];
  const auto plus = v.find('+');
  std::string cuda;
  if (plus != std::string_view::npos && starts_with(v.substr(plus + 1), "cuda")) cuda = std::string(v.substr(plus + 5));
  return {nccl::version_string(*release), cuda};
}

std::string nccl_version_of_code(long code) { return nccl::version_string(nccl::version_of_code(code)); }

}  // namespace meshbench::analysis::detail
