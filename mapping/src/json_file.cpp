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

}  // namespace meshbench::mapping::detail
