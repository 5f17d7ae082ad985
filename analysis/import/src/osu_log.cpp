// The OSU micro-benchmarks' output (c/util/osu_util_mpi.c in OSU 7.4): "# OSU MPI[-CUDA] <name>
// Test v7.4", "# Datatype: MPI_CHAR." (7.x), a "# Size ..." column header, one row per size.
// OSU measures one communicator of every launched rank but never prints how many there were: the
// count comes from --ranks, else from the launch command pasted before the output.
#include "analysis/import/osu_log.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "analysis/import/src/log_text.hpp"
#include "analysis/logs/nccl_log.hpp"

namespace meshbench::analysis {

namespace {

using detail::quoted;
using detail::refuse;
using detail::starts_with;
using detail::tokens;

constexpr const char* kImported = "osu_allreduce, osu_allgather, osu_reduce_scatter, osu_alltoall, osu_latency or osu_bw";

// A test meshbench can store: its op, and whether OSU's size is one rank's share (times the
// ranks gives nccl-tests' size: all-gather's receive buffer, all-to-all's send buffer).
struct Test {
  std::string_view name;
  std::string_view op;
  bool per_rank_size;
  bool point_to_point;  // two ranks, whatever was launched
};
constexpr std::array<Test, 6> kTests = {{
    {"Allreduce Latency", "all_reduce", false, false},
    {"Allgather Latency", "all_gather", true, false},
    {"Reduce_scatter Latency", "reduce_scatter", false, false},
    {"All-to-All Personalized Exchange Latency", "all_to_all", true, false},
    {"Latency", "send_recv", false, true},
    {"Bandwidth", "send_recv", false, true},
}};

// The header names these columns after "Size", each of one or two words.
constexpr std::array<std::string_view, 8> kColumns = {"Avg Latency(us)", "Min Latency(us)", "Max Latency(us)", "Iterations",
                                                      "Validation",      "Latency (us)",    "Latency(us)",     "Bandwidth (MB/s)"};

std::string dtype_of_mpi(std::string_view name) {
  static const std::map<std::string_view, std::string_view> kTypes = {
      {"MPI_CHAR", "int8"},     {"MPI_SIGNED_CHAR", "int8"}, {"MPI_UNSIGNED_CHAR", "uint8"}, {"MPI_INT", "int32"},
      {"MPI_FLOAT", "float32"}, {"MPI_DOUBLE", "float64"},   {"MPI_LONG", "int64"},
  };
  const auto it = kTypes.find(name);
  return it == kTypes.end() ? "" : std::string(it->second);
}

struct Run {
  const Test* test = nullptr;
  std::string dtype = "unstated";  // OSU before 7.0 printed no datatype line
  std::vector<std::string_view> columns;
  int header_line = 0, columns_line = 0;
  bool in_table = false;
  int rows = 0;
};

}  // namespace

ImportedLog parse_osu_log(std::istream& in, const std::string& path, const ImportOptions& options) {
  ImportedLog log;
  log.tool = "osu";
  log.path = path;
  Run run;
  std::string text;
  int number = 0;
  bool launcher_block = false;
  int ranks = 0;
  // The ranks the latest command line in the log launched OSU on (`mpirun -np 4 osu_allreduce`).
  int command_ranks = 0;
  const auto note_command = [&](std::string_view line) {
    if (options.strict) return;
    if (const auto n = detail::launched_ranks(line, "osu_")) command_ranks = *n;
  };
  const auto finish = [&] {
    if (run.test != nullptr && run.rows == 0)
      refuse(path, run.header_line, "this run printed no result rows (did it fail?); remove it or rerun");
  };
  while (std::getline(in, text)) {
    ++number;
    const std::string_view t = options.strict ? trim(strip_launcher_prefix(text)) : detail::unquoted(strip_launcher_prefix(text));
    if (t.empty()) continue;
    if (t.front() == '#') {
      const std::string_view body = trim(t.substr(1));
      if (starts_with(body, "OSU MPI")) {
        finish();
        run = Run{};
        run.header_line = number;
        // "OSU MPI-CUDA Allreduce Latency Test v7.4": the name between the accelerator and " Test".
        std::string_view name = body.substr(7);
        if (starts_with(name, "-")) name = name.substr(std::min(name.find(' '), name.size()));
        name = trim(name);
        const auto test_at = name.rfind(" Test");
        if (test_at == std::string_view::npos)
          refuse(path, number, "an OSU header without ' Test' (" + quoted(body) + "); give the log as OSU printed it");
        const std::string_view version = trim(name.substr(test_at + 5));
        name = name.substr(0, test_at);
        for (const auto& test : kTests) {
          if (test.name == name) run.test = &test;
        }
        if (run.test == nullptr)
          refuse(path, number,
                 "OSU's " + std::string(name) + " test measures an op meshbench does not store; import the logs of " + kImported);
        const int n = run.test->point_to_point ? 2 : options.ranks > 0 ? options.ranks : command_ranks;
        if (n < 2)
          refuse(path, number,
                 "OSU does not print how many ranks ran " + std::string(name) + "; give --ranks N (mpirun -np N, at least 2)");
        if (ranks != 0 && n != ranks)
          refuse(path, number,
                 "this run has " + std::to_string(n) + " ranks and an earlier one in the file " + std::to_string(ranks) +
                     " (point-to-point tests run on 2); import them into separate results files");
        ranks = n;
        if (starts_with(version, "v") && log.versions.empty())
          log.versions.emplace_back("osu-micro-benchmarks", std::string(version.substr(1)));
        ++log.runs;
        continue;
      }
      if (starts_with(body, "Datatype:")) {
        std::string_view name = trim(body.substr(9));
        if (!name.empty() && name.back() == '.') name.remove_suffix(1);
        run.dtype = dtype_of_mpi(name);
        if (run.dtype.empty())
          refuse(path, number,
                 "datatype " + quoted(name) + " is not one meshbench names; rerun OSU with -T mpi_char, mpi_int or mpi_float");
        continue;
      }
      if (starts_with(body, "Size")) {
        if (run.test == nullptr)
          refuse(path, number, "a column header before any '# OSU MPI ... Test' line; give the log as OSU printed it");
        run.columns.clear();
        std::string_view rest = trim(body.substr(4));
        while (!rest.empty()) {
          bool known = false;
          for (const auto c : kColumns) {
            if (starts_with(rest, c)) {
              run.columns.push_back(c);
              rest = trim(rest.substr(c.size()));
              known = true;
              break;
            }
          }
          if (!known) refuse(path, number, "a column meshbench does not read: " + quoted(rest) + "; rerun without the option that adds it");
        }
        const bool timed = std::find(run.columns.begin(), run.columns.end(), "Avg Latency(us)") != run.columns.end() ||
                           std::find(run.columns.begin(), run.columns.end(), "Latency (us)") != run.columns.end() ||
                           std::find(run.columns.begin(), run.columns.end(), "Latency(us)") != run.columns.end() ||
                           std::find(run.columns.begin(), run.columns.end(), "Bandwidth (MB/s)") != run.columns.end();
        if (!timed) refuse(path, number, "a column header without a latency or bandwidth column; give the log as OSU printed it");
        run.columns_line = number;
        run.in_table = true;
        continue;
      }
      if (starts_with(body, "nThread") || starts_with(body, "Collective test") || starts_with(body, "nccl-tests version"))
        refuse(path, number, "this is an nccl-tests log; import it with 'meshbench import nccl-tests'");
      note_command(body);  // a root prompt's "# mpirun -np 4 osu_allreduce"
      continue;            // OSU's other notes: buffers on the device, window options
    }
    // Before the launcher's own lines are passed over: a prompt "[user@host dir]$ srun -n 4 ..." reads as one.
    note_command(t);
    if (detail::is_launcher_line(t, launcher_block)) continue;
    if (starts_with(t, "DATA VALIDATION ERROR")) {
      run.in_table = false;  // OSU stops at the first size that fails its check
      continue;
    }
    const auto f = tokens(t);
    // Outside a table any such line, in one a line that does not start with a size (MVAPICH's
    // warnings print between rows), is not OSU's; under --strict every line in a table is a row.
    if (!run.in_table || (!options.strict && !detail::to_u64(f.front()))) {
      detail::skip_line(log, options, number, t, "unrecognised line " + quoted(t) + ": not OSU output; give the output of " + kImported);
      continue;
    }
    if (f.size() != run.columns.size() + 1)
      refuse(path, number,
             "a result row of " + std::to_string(f.size()) + " fields where the column header at line " + std::to_string(run.columns_line) +
                 " names " + std::to_string(run.columns.size() + 1) + " (" + quoted(t) + ")");
    const auto size = detail::to_u64(f[0]);
    if (!size || *size == 0 || *size > (std::uint64_t{1} << 48))
      refuse(path, number, "size " + quoted(f[0]) + " is not a byte count; give the log as OSU printed it");
    LoggedPoint p;
    p.op = std::string(run.test->op);
    p.dtype = run.dtype;
    p.bytes = *size * (run.test->per_rank_size ? static_cast<std::uint64_t>(ranks) : 1);
    p.timing = "batched";
    p.line = number;
    p.run = log.runs - 1;
    for (std::size_t i = 0; i < run.columns.size(); ++i) {
      const std::string_view c = run.columns[i];
      const std::string_view v = f[i + 1];
      if (c == "Validation") {
        if (v != "Pass" && v != "Fail") refuse(path, number, "validation " + quoted(v) + " is neither Pass nor Fail");
        p.wrong = v == "Fail" ? 1 : 0;  // OSU says pass or fail, not how many: a failure is at least one wrong element
        continue;
      }
      const auto x = detail::to_double(v);
      if (!x || *x < 0) refuse(path, number, std::string(c) + " " + quoted(v) + " is not a number; give the log as OSU printed it");
      if (c == "Iterations") {
        if (*x > 1e9) refuse(path, number, "iterations " + quoted(v) + " is out of range; give the log as OSU printed it");
        p.iters = static_cast<int>(*x);
      } else if (c == "Min Latency(us)") p.min_us = *x;
      else if (c == "Max Latency(us)") p.max_us = *x;
      else if (c == "Bandwidth (MB/s)") {
        if (*x <= 0) refuse(path, number, "bandwidth " + quoted(v) + " is not positive; give the log as OSU printed it");
        p.time_us = static_cast<double>(*size) / *x;  // MB/s is 1e6 B/s: bytes over it is microseconds per message
      } else {
        p.time_us = *x;
      }
    }
    log.points.push_back(std::move(p));
    ++run.rows;
  }
  finish();
  if (log.runs == 0 && !log.skipped_first.empty())
    refuse(path, log.skipped_first.front().first,
           "unrecognised line " + detail::quoted(log.skipped_first.front().second) + ", and no '# OSU MPI ... Test' header in " +
               std::to_string(number) + " line(s); give the output of " + kImported);
  if (log.runs == 0)
    refuse(path, std::max(number, 1),
           "no '# OSU MPI ... Test' header in " + std::to_string(number) + " line(s); give the output of " + kImported);
  log.ranks = ranks;
  return log;
}

}  // namespace meshbench::analysis
