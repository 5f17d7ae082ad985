#pragma once
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

#include <nlohmann/json.hpp>

namespace meshbench {

// A JSON integer as Int, or nothing when the value is not an integer or lies outside Int's range.
// nlohmann's get<int>() casts whatever number a value holds: an unsigned past INT_MAX wraps (a
// plan's "tp": 4294967298 would read as 2), a float past it is undefined behaviour. Every reader
// of a user's file takes its integers through here and words its own refusal. Floats such as 2.0
// are not integers, as in the readers' messages.
template <class Int>
std::optional<Int> json_integer(const nlohmann::json& v) {
  static_assert(std::is_integral_v<Int> && !std::is_same_v<Int, bool>);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (std::in_range<Int>(u)) return static_cast<Int>(u);
  } else if (v.is_number_integer()) {
    const auto s = v.get<std::int64_t>();
    if (std::in_range<Int>(s)) return static_cast<Int>(s);
  }
  return std::nullopt;
}

}  // namespace meshbench
