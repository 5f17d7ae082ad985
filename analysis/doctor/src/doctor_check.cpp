#include "analysis/doctor/doctor_check.hpp"

#include <array>
#include <string>

#include "common/error.hpp"

namespace meshbench::analysis {

namespace {
constexpr std::array<std::pair<CheckStatus, std::string_view>, 4> kNames = {
    {{CheckStatus::pass, "PASS"}, {CheckStatus::skip, "SKIP"}, {CheckStatus::warn, "WARN"}, {CheckStatus::fail, "FAIL"}}};
}

std::string_view to_string(CheckStatus status) {
  for (const auto& [s, name] : kNames) {
    if (s == status) return name;
  }
  return "SKIP";
}

CheckStatus parse_check_status(std::string_view text) {
  for (const auto& [s, name] : kNames) {
    if (name == text) return s;
  }
  throw InputError("unknown check status '" + std::string(text) + "'; expected PASS, SKIP, WARN or FAIL");
}

CheckStatus worst(CheckStatus a, CheckStatus b) { return static_cast<int>(a) >= static_cast<int>(b) ? a : b; }

}  // namespace meshbench::analysis
