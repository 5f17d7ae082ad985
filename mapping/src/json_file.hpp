#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace meshbench::mapping::detail {

// Parses a JSON file; InputError "cannot read <what> file 'PATH'" or "<what> file 'PATH' is not
// valid JSON (byte N)" (or "holds a number too large for a double").
nlohmann::json read_json_file(const std::string& path, const std::string& what);

}  // namespace meshbench::mapping::detail
