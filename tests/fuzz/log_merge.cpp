// Any log `logs merge` reads: its timestamps (ISO, dmesg, dmesg -T, syslog) and the merged view.
// A NUL byte separates files (logs are text), so that merging several files is fuzzed too.
#include <sstream>

#include "analysis/logs/log_merge.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

void log_merge(std::string_view input) {
  analysis::MergeOptions options;
  options.boot_time_ns = 1'700'000'000'000'000'000;  // fixed, so a run does not depend on this machine's boot
  options.year = 2025;
  std::vector<std::vector<analysis::MergedLine>> files;
  std::size_t start = 0;
  while (start <= input.size()) {
    const std::size_t end = std::min(input.find('\0', start), input.size());
    std::istringstream in{std::string(input.substr(start, end - start))};
    files.push_back(analysis::read_log_lines(in, "log" + std::to_string(files.size()), options));
    start = end + 1;
  }
  const auto merged = analysis::merge_logs(files);
  std::ostringstream text;
  analysis::print_merged(merged, text);
  (void)analysis::to_json(merged).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace meshbench::fuzz
