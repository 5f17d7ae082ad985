#pragma once
// Private: the "what changed" part both comparisons (two runs, baseline sets) write, in text or
// Markdown and in JSON, from the same rows (provenance_changes in compare.hpp).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/compare/compare.hpp"
#include "analysis/report/report_sink.hpp"

namespace meshbench::analysis::detail {

// The heading, then a kind | name | base | new table (or a line saying nothing changed), then
// how many per-launch variables were left out; `hidden_examples` (": job ids, ports" or "")
// follows "differ as they always do" in that line.
void write_provenance_changes(Sink& s, const std::string& heading, const std::vector<ProvenanceChange>& changes, int hidden,
                              std::string_view hidden_examples);
// "changes" ([{kind, name, base, new}]) and "hidden_changes".
void add_provenance_changes(nlohmann::ordered_json& j, const std::vector<ProvenanceChange>& changes, int hidden);

}  // namespace meshbench::analysis::detail
