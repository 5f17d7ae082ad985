#pragma once
// What changed between two runs' recorded versions: pure, shared by the doctor (which records
// them) and compare (which reads them back from a results file) so the two cannot disagree.
#include <map>
#include <string>
#include <vector>

namespace meshbench::results {

// component -> host -> version, as the doctor's report records them.
using VersionsByHost = std::map<std::string, std::map<std::string, std::string>>;
// name -> one value.
using NamedValues = std::map<std::string, std::string>;

// One value per component: the version where all hosts agree, "mixed: a, b" where they do not.
NamedValues common_versions(const VersionsByHost& versions);

struct ValueChange {
  std::string name;
  std::string before;
  std::string after;
};
// The names whose values differ, in name order; `absent` stands in for a side without the name.
std::vector<ValueChange> value_changes(const NamedValues& before, const NamedValues& after, const std::string& absent);

}  // namespace meshbench::results
