#pragma once
// The history's writers: console text, Markdown and JSON; each only formats a History.
#include <iosfwd>

#include <nlohmann/json.hpp>

#include "analysis/history/history.hpp"
#include "common/cli.hpp"

namespace meshbench::analysis {

// 3: the version's key is `schema_version`, as in every other JSON meshbench writes (2 said `version`).
inline constexpr int kHistoryJsonVersion = 3;
nlohmann::ordered_json history_to_json(const History& history);
void write_history(const History& history, OutputFormat format, std::ostream& out);

}  // namespace meshbench::analysis
