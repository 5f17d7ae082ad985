#pragma once
// Text helpers every module uses.
#include <ranges>
#include <string>
#include <string_view>

namespace meshbench {

// The items with `sep` between them: {"a", "b", "c"} and ", " give "a, b, c"; none give "".
// Items are whatever a std::string appends (std::string, std::string_view, const char*); a
// transform view turns other things into text first.
template <std::ranges::input_range Range>
std::string join(Range&& items, std::string_view sep) {
  std::string out;
  bool first = true;
  for (auto&& item : items) {
    if (!first) out += sep;
    first = false;
    out += item;
  }
  return out;
}

}  // namespace meshbench
