#include "json_file.hpp"

#include <fstream>

#include "common/error.hpp"

namespace meshbench::mapping::detail {

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read " + what + " file '" + path + "'; check the path");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(what + " file '" + path + "' is not valid JSON (byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::out_of_range&) {  // a number beyond a double (406), not a parse_error
    throw InputError(what + " file '" + path + "' is not valid JSON: it holds a number too large for a double");
  }
}

namespace {

// Puts the placeholder "@slotsN@" under every mapping's "slot_of_rank" of one plan, numbering on.
void mark_placements(nlohmann::ordered_json& plan, std::size_t& next) {
  for (auto& m : plan["mappings"]) m["slot_of_rank"] = "@slots" + std::to_string(next++) + "@";
}

}  // namespace

std::string plan_file_text(nlohmann::ordered_json j, const std::vector<const std::vector<int>*>& placements) {
  std::size_t marked = 0;
  if (j.contains("layouts")) {  // a plan file of several layouts (plan_set.hpp)
    for (auto& entry : j["layouts"]) mark_placements(entry["plan"], marked);
  } else {
    mark_placements(j, marked);
  }
  std::string text = j.dump(2);
  for (std::size_t i = 0; i < marked && i < placements.size(); ++i) {
    const std::string mark = "\"@slots" + std::to_string(i) + "@\"";
    text.replace(text.find(mark), mark.size(), nlohmann::ordered_json(*placements[i]).dump());
  }
  return text + "\n";
}

}  // namespace meshbench::mapping::detail
