#include <algorithm>
#include <istream>
#include <ostream>

#include "analysis/logs/log_merge.hpp"

namespace meshbench::analysis {

std::vector<MergedLine> read_log_lines(std::istream& in, const std::string& source, const MergeOptions& options) {
  std::vector<MergedLine> lines;
  std::optional<std::int64_t> last;
  std::string text;
  while (std::getline(in, text)) {
    if (!text.empty() && text.back() == '\r') text.pop_back();
    MergedLine l;
    l.source = source;
    l.line_no = lines.size() + 1;
    if (auto ts = parse_log_timestamp(text, options)) {
      last = ts->ns;
    } else {
      l.inherited = true;
    }
    l.time_ns = last;
    l.text = std::move(text);
    lines.push_back(std::move(l));
  }
  // Lines before the first timestamp take that first timestamp.
  auto first = std::find_if(lines.begin(), lines.end(), [](const MergedLine& l) { return l.time_ns.has_value(); });
  if (first != lines.end()) {
    for (auto it = lines.begin(); it != first; ++it) it->time_ns = first->time_ns;
  }
  return lines;
}

std::vector<MergedLine> merge_logs(const std::vector<std::vector<MergedLine>>& files) {
  std::vector<MergedLine> all;
  for (const auto& f : files) all.insert(all.end(), f.begin(), f.end());
  // Stable: among equal times the files keep the order given, and a file's lines their order.
  std::stable_sort(all.begin(), all.end(), [](const MergedLine& a, const MergedLine& b) {
    if (a.time_ns.has_value() != b.time_ns.has_value()) return a.time_ns.has_value();
    return a.time_ns.value_or(0) < b.time_ns.value_or(0);
  });
  return all;
}

nlohmann::json to_json(const std::vector<MergedLine>& lines) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& l : lines) {
    out.push_back({{"time", l.time_ns ? nlohmann::json(format_utc(*l.time_ns)) : nlohmann::json(nullptr)},
                   {"inherited", l.inherited},
                   {"source", l.source},
                   {"line", l.line_no},
                   {"text", l.text}});
  }
  return out;
}

void print_merged(const std::vector<MergedLine>& lines, std::ostream& out) {
  for (const auto& l : lines) {
    // '~' marks a time inherited from an earlier line of the same file.
    out << (l.time_ns ? format_utc(*l.time_ns) : std::string("(no time)                  ")) << (l.inherited ? " ~ " : "   ") << "["
        << l.source << ":" << l.line_no << "] " << l.text << "\n";
  }
}

}  // namespace meshbench::analysis
