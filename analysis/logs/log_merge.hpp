#pragma once
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace meshbench::analysis {

// `meshbench logs merge`: several logs (NCCL's, the kernel's, meshbench's, journald's) in one
// time-ordered view, each line tagged with its source, to cross-check a hang as the
// collaboration guide recommends.

struct MergeOptions {
  // Boot time (ns since the epoch) for dmesg's raw "[seconds.micro]" form; default: this
  // machine's (/proc/stat btime), right only for a dmesg taken here since the last boot.
  std::optional<std::int64_t> boot_time_ns;
  // Year for syslog-style "Mmm dd HH:MM:SS" lines, which carry none; default: this year.
  std::optional<int> year;
};

// A timestamp at the start of a line (after a launcher tag), as ns since the epoch (UTC).
// Recognised: ISO-8601 with or without brackets, 'T' or ' ' between date and time, fractions
// and a zone ("Z", "+00:00", "+0000") — NCCL_DEBUG_TIMESTAMP_FORMAT's default "[%F %T] " and
// "%6f" variants, meshbench's own lines, journalctl -o short-iso(-precise); dmesg -T
// "[Tue Jan  2 13:45:01 2024]"; dmesg "[  12.345678]"; syslog/journalctl short "Jan  2 13:45:01".
// Times without a zone are local time of the machine that merges (set TZ to change that).
struct LogTimestamp {
  std::int64_t ns = 0;
  std::string format;  // "iso", "dmesg-T", "dmesg", "syslog"
};
std::optional<LogTimestamp> parse_log_timestamp(std::string_view line, const MergeOptions& options);

struct MergedLine {
  std::optional<std::int64_t> time_ns;  // empty: the file has no timestamp at all
  bool inherited = false;               // no timestamp of its own: the previous line's (or the file's first)
  std::string source;
  std::size_t line_no = 0;
  std::string text;
};

// One file's lines with their times. A line without a timestamp inherits the previous line's
// time within its file; lines before the file's first timestamp take that first timestamp.
std::vector<MergedLine> read_log_lines(std::istream& in, const std::string& source, const MergeOptions& options);

// All files in one order: by time; equal times keep the order of the files as given and of the
// lines within a file; lines of files without any timestamp come last.
std::vector<MergedLine> merge_logs(const std::vector<std::vector<MergedLine>>& files);

std::string format_utc(std::int64_t ns);  // "2025-01-02T13:45:01.123456Z"
std::int64_t boot_time_ns_from_proc();    // this machine's boot time, 0 when unknown
nlohmann::json to_json(const std::vector<MergedLine>& lines);
void print_merged(const std::vector<MergedLine>& lines, std::ostream& out);

}  // namespace meshbench::analysis
