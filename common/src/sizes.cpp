#include "common/sizes.hpp"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <limits>

#include "common/error.hpp"

namespace meshbench {

std::uint64_t parse_bytes(std::string_view text) {
  const std::string original(text);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.remove_suffix(1);
  std::uint64_t multiplier = 1;
  if (!text.empty()) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K': multiplier = 1ULL << 10U; break;
      case 'M': multiplier = 1ULL << 20U; break;
      case 'G': multiplier = 1ULL << 30U; break;
      case 'T': multiplier = 1ULL << 40U; break;
      default: break;
    }
    if (multiplier != 1) text.remove_suffix(1);
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw InputError("malformed size '" + original + "'; write bytes as a number with an optional K, M or G suffix (e.g. 8, 64K, 4M)");
  }
  if (value > std::numeric_limits<std::uint64_t>::max() / multiplier) {
    throw InputError("size '" + original + "' is too large");
  }
  return value * multiplier;
}

std::vector<std::uint64_t> size_sweep(std::uint64_t min_bytes, std::uint64_t max_bytes, std::uint64_t factor) {
  if (min_bytes == 0) throw InputError("the smallest size must be at least 1 byte; raise -b/--min-bytes");
  if (max_bytes < min_bytes) throw InputError("the largest size is below the smallest; check -b/--min-bytes and -e/--max-bytes");
  if (factor < 2) throw InputError("the size step factor must be at least 2; set -f/--step-factor");
  std::vector<std::uint64_t> sizes;
  for (std::uint64_t s = min_bytes; s <= max_bytes; s *= factor) {
    sizes.push_back(s);
    if (s > max_bytes / factor) break;
  }
  return sizes;
}

std::vector<std::uint64_t> parse_size_list(std::string_view text) {
  std::vector<std::uint64_t> sizes;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    sizes.push_back(parse_bytes(item));
    if (sizes.back() == 0) throw InputError("size 0 in '" + std::string(text) + "'; every size must be at least 1 byte");
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  if (sizes.empty()) throw InputError("empty size list; give sizes like 8,1K,4M");
  return sizes;
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  std::uint64_t whole = bytes;
  while (unit < 4 && whole >= 1024 && whole % 1024 == 0) {
    whole /= 1024;
    ++unit;
  }
  if (unit == 0 && bytes >= 1024) {  // not a power-of-two multiple: one decimal
    double v = static_cast<double>(bytes);
    while (unit < 4 && v >= 1024.0) {
      v /= 1024.0;
      ++unit;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
    return buf;
  }
  return std::to_string(whole) + " " + kUnits[unit];
}

}  // namespace meshbench
