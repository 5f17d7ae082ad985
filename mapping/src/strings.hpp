#pragma once
#include <string>
#include <vector>

namespace meshbench::mapping::detail {

inline std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

}  // namespace meshbench::mapping::detail
