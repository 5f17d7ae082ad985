#include "results/version_changes.hpp"

#include <set>

namespace meshbench::results {

NamedValues common_versions(const VersionsByHost& versions) {
  NamedValues out;
  for (const auto& [component, by_host] : versions) {
    std::set<std::string> distinct;
    for (const auto& [host, v] : by_host) distinct.insert(v);
    // Not join(): an empty version (sorted first) has always been left out of the text.
    std::string value;
    for (const auto& v : distinct) value += (value.empty() ? "" : ", ") + v;
    out[component] = distinct.size() == 1 ? value : "mixed: " + value;
  }
  return out;
}

std::vector<ValueChange> value_changes(const NamedValues& before, const NamedValues& after, const std::string& absent) {
  std::set<std::string> names;
  for (const auto& [name, value] : before) names.insert(name);
  for (const auto& [name, value] : after) names.insert(name);
  std::vector<ValueChange> out;
  for (const auto& name : names) {
    const auto b = before.find(name);
    const auto a = after.find(name);
    const std::string bv = b == before.end() ? absent : b->second;
    const std::string av = a == after.end() ? absent : a->second;
    if (bv != av) out.push_back({name, bv, av});
  }
  return out;
}

}  // namespace meshbench::results
