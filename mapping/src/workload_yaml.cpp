// YAML workload files, read with yaml-cpp and turned into the JSON the keys are checked on, so
// that both spellings of a file mean the same and meet the same checks.
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <cctype>

#include "common/error.hpp"
#include "workload_formats.hpp"

namespace meshbench::mapping::detail {

namespace {

using nlohmann::json;

// Aliases let a small file stand for a huge tree; a workload needs a few dozen nodes.
constexpr int kMaxNodes = 100'000;
constexpr int kMaxDepth = 64;

bool digits(const std::string& s, std::size_t& i) {
  const std::size_t start = i;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0) ++i;
  return i > start;
}

// [-+]?digits, or a decimal with an optional exponent (checked by hand: std::regex recurses
// per character and a long scalar would exhaust the stack).
bool is_integer(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  return digits(s, i) && i == s.size();
}

bool is_real(const std::string& s) {
  std::size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  const bool whole = digits(s, i);
  bool fraction = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = digits(s, i);
  }
  if (!whole && !fraction) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (!digits(s, i)) return false;
  }
  return i == s.size();
}

// YAML 1.2's core schema for a plain (unquoted) scalar: null, a boolean, an integer, a float,
// or a string.
json plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (is_integer(s)) {
    try {
      return std::stoll(s);
    } catch (const std::out_of_range&) {
      return s;  // beyond an integer: left a string, which the key's check refuses
    }
  }
  if (is_real(s)) {
    try {
      return std::stod(s);
    } catch (const std::out_of_range&) {
      return s;
    }
  }
  return s;
}

struct Converter {
  std::string where;
  int nodes = 0;

  json convert(const YAML::Node& node, int depth) {
    if (++nodes > kMaxNodes || depth > kMaxDepth) {
      throw InputError("YAML file " + where + " nests or repeats (through aliases) too deeply for a workload; write the keys out flat");
    }
    switch (node.Type()) {
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined: return nullptr;
      case YAML::NodeType::Scalar: return node.Tag() == "!" ? json(node.Scalar()) : plain_scalar(node.Scalar());
      case YAML::NodeType::Sequence: {
        json out = json::array();
        for (const auto& item : node) out.push_back(convert(item, depth + 1));
        return out;
      }
      case YAML::NodeType::Map: {
        json out = json::object();
        for (const auto& kv : node) {
          if (!kv.first.IsScalar()) {
            throw InputError("YAML file " + where + " line " + std::to_string(kv.first.Mark().line + 1) + ": a key must be a plain name");
          }
          out[kv.first.Scalar()] = convert(kv.second, depth + 1);
        }
        return out;
      }
    }
    return nullptr;
  }
};

}  // namespace

json yaml_to_json(const std::string& text, const std::string& where) {
  try {
    const YAML::Node root = YAML::Load(text);
    Converter c{where};
    return c.convert(root, 0);
  } catch (const YAML::DeepRecursion&) {
    throw InputError("YAML file " + where + " nests too deeply for a workload; write the keys out flat");
  } catch (const YAML::Exception& e) {
    const std::string line = e.mark.is_null() ? "" : " line " + std::to_string(e.mark.line + 1);
    throw InputError("YAML file " + where + " is not valid YAML" + line + ": " + e.msg);
  }
}

}  // namespace meshbench::mapping::detail
