#pragma once
// What a log of another benchmark says, once read: the points it printed and what it tells of
// the run that printed them. Both importers (nccl_tests_log.hpp, osu_log.hpp) produce it, and
// import_results.hpp turns one or several into a results file.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/environment.hpp"

namespace meshbench::analysis {

// One result line: one op at one size in one timing variant, in meshbench's terms.
struct LoggedPoint {
  std::string op;           // meshbench's op name (common/ops)
  std::string dtype;        // float32, bfloat16, int8, ...
  std::uint64_t bytes = 0;  // nccl-tests' size convention (the tool's own size converted)
  std::string timing;       // batched (out-of-place), batched_in_place
  double time_us = 0;       // the tool's time: the mean over its timed iterations
  // Spread the tool printed beside the mean: nccl-tests -I 1's per-iteration min, max and p99,
  // OSU -f's min and max over the ranks' means. Unset when the log has none.
  std::optional<double> min_us, max_us, p99_us;
  std::int64_t wrong = -1;  // wrong elements summed over ranks; -1 when the tool did not check
  int iters = 0, warmup = 0;
  int run = 0;   // which run of its log printed it (0 first)
  int line = 0;  // where, for messages
};

struct ImportedLog {
  std::string tool;  // nccl-tests | osu
  std::string path;
  std::string program;               // the benchmark binary, when the log names it (all_reduce_perf, osu_allreduce)
  int ranks = 0;                     // 0: the log does not say
  std::vector<std::string> hosts;    // per rank, empty when the log does not say
  std::vector<std::string> devices;  // per rank ("NVIDIA H100 80GB HBM3"), empty when the log does not say
  std::vector<std::pair<std::string, std::string>> versions;  // {"nccl", "2.18.3"}, {"nccl-tests", "2.13.8"}, ...
  std::string command_line;                                   // nccl-tests -J's argv, joined
  results::Environment environment;                           // nccl-tests -J's env, allow-listed
  std::string started_at;                                     // as the log gives it, ISO-8601; empty when it does not
  int runs = 0;                                               // runs appended in the file
  std::vector<LoggedPoint> points;
  // Lines that are not the tool's output (a shell prompt and command, prose pasted with the log,
  // a wrapped command's tail), skipped unless --strict: how many, and the first few as
  // {line, text} for --verbose.
  int skipped = 0;
  std::vector<std::pair<int, std::string>> skipped_first;
};

// Choices a log may leave open, from the command line.
struct ImportOptions {
  std::string op;       // the collective, for an nccl-tests log that does not name its binary
  int ranks = 0;        // for an OSU collective log (OSU does not print how many ranks ran)
  bool strict = false;  // refuse any line that is not the tool's output instead of skipping it
};

}  // namespace meshbench::analysis
