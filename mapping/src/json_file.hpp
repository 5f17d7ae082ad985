#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace meshbench::mapping::detail {

// Parses a JSON file; InputError "cannot read <what> file 'PATH'" or "<what> file 'PATH' is not
// valid JSON (byte N)" (or "holds a number too large for a double").
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// A plan document as its file holds it: indented for reading, but each placement on one line (a
// 65,536-entry list one number per line would make the file unreadable). `placements`: every
// mapping's slot_of_rank, in the order the document's "slot_of_rank" keys come; `j` has them
// left out (plan_to_json(plan, false)) and gets them here.
std::string plan_file_text(nlohmann::ordered_json j, const std::vector<const std::vector<int>*>& placements);

}  // namespace meshbench::mapping::detail
