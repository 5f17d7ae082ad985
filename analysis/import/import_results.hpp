#pragma once
// Imported logs as a results file with the same /measurements columns as meshbench's own runs
// (docs/import.md says how each field is filled).
#include <string>
#include <vector>

#include "analysis/import/imported_log.hpp"
#include "results/records.hpp"
#include "results/writer.hpp"

namespace meshbench::analysis {

struct ImportedResults {
  results::RunHeader header;
  std::vector<results::PointRecord> points;
  std::vector<std::string> notes;  // what the logs left out and how it was filled
};

// One run of one communicator of every rank: a pure data-parallel layout whose dp group is that
// communicator, placed in rank order. Logs of one run shape only: InputError naming the log
// whose ranks or hosts differ from the first's. Points printed more than once (runs appended,
// nccl-tests -N) become rounds of one point. `started_at` overrides the logs' own time.
ImportedResults imported_results(const std::vector<ImportedLog>& logs, const std::string& command_line, const std::string& started_at);

}  // namespace meshbench::analysis
