#pragma once
#include <map>
#include <string>
#include <string_view>

namespace meshbench::analysis {

// Ordered by severity so that the worst of several is their maximum.
enum class CheckStatus { pass, skip, warn, fail };

std::string_view to_string(CheckStatus status);         // "PASS", "SKIP", "WARN", "FAIL"
CheckStatus parse_check_status(std::string_view text);  // inverse of to_string; throws InputError
CheckStatus worst(CheckStatus a, CheckStatus b);

// One line of the pre-flight checklist. `id` is stable ("env.identical", "versions.nccl"): run
// stores it and compare matches on it, so never rename one lightly.
struct Check {
  std::string id;
  std::string title;
  CheckStatus status = CheckStatus::skip;
  std::string reason;                          // what was found, with the values and the hosts/ranks it concerns
  std::string fix;                             // what to do about it; empty for PASS
  std::map<std::string, std::string> details;  // per-rank / per-node values, thresholds, sources
};

}  // namespace meshbench::analysis
