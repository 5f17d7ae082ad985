#pragma once
// The import tests' fixture logs (tests/data/import, README.md there) read through the parsers.
#include <fstream>
#include <string>
#include <vector>

#include "analysis/import/nccl_tests_log.hpp"
#include "analysis/import/osu_log.hpp"

namespace meshbench::analysis::test_import {

inline std::string fixture(const std::string& name) { return std::string(MESHBENCH_TEST_DATA) + "/import/" + name; }

inline ImportedLog nccl_tests(const std::string& name, const ImportOptions& options = {}) {
  std::ifstream in(fixture("nccl-tests/" + name));
  return parse_nccl_tests_log(in, name, options);
}

inline ImportedLog osu(const std::string& name, const ImportOptions& options = {}) {
  std::ifstream in(fixture("osu/" + name));
  return parse_osu_log(in, name, options);
}

inline ImportOptions with_op(const std::string& op) {
  ImportOptions o;
  o.op = op;
  return o;
}
inline ImportOptions with_ranks(int ranks) {
  ImportOptions o;
  o.ranks = ranks;
  return o;
}

// The points of one timing variant, in the log's order.
inline std::vector<LoggedPoint> of_timing(const ImportedLog& log, const std::string& timing) {
  std::vector<LoggedPoint> out;
  for (const auto& p : log.points) {
    if (p.timing == timing) out.push_back(p);
  }
  return out;
}

}  // namespace meshbench::analysis::test_import
