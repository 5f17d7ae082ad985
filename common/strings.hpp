#pragma once
// Text helpers every module uses.
#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench {

// The items with `sep` between them: {"a", "b", "c"} and ", " give "a, b, c"; none give "".
// Items are whatever a std::string appends (std::string, std::string_view, const char*), or
// become text through `text` (join(ranks, " ", [](int r) { return std::to_string(r); })).
// A plain loop rather than a ranges view: clang-tidy's clang 14 cannot parse libstdc++ 12's views.
template <typename Range, typename Text>
std::string join(const Range& items, std::string_view sep, Text&& text) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += sep;
    first = false;
    out += text(item);
  }
  return out;
}

template <typename Range>
std::string join(const Range& items, std::string_view sep) {
  return join(
      items, sep, [](const auto& item) -> const auto& { return item; });
}

// The non-empty pieces of `text` between `sep`s: "a,,b," and ',' give {"a", "b"}; "" gives none.
inline std::vector<std::string> split_nonempty(std::string_view text, char sep) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto end = text.find(sep);
    if (end != 0) out.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

// `text` in lower case (ASCII): for names compared without regard to case.
inline std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// `text` with every control character (a line break, a NUL) shown as '?': for error messages that
// quote a file, which must stay one line (docs/reliability.md, "Fuzzing").
inline std::string one_line(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (std::iscntrl(static_cast<unsigned char>(c)) != 0) c = '?';
  }
  return out;
}

// `s` without the white space (isspace's) at either end.
inline std::string_view trim(std::string_view s) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const auto first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

// `v` with `digits` decimals ("%.*f"): fixed(2.345, 1) gives "2.3".
inline std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace meshbench
