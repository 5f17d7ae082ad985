#include "common/nccl_version.hpp"

namespace meshbench::nccl {

std::optional<int> parse_version(std::string_view text) {
  constexpr std::string_view kLine = "NCCL version ";
  if (text.substr(0, kLine.size()) == kLine) text.remove_prefix(kLine.size());
  int parts[3] = {0, 0, 0};
  std::size_t i = 0;
  for (int& part : parts) {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 4) part = part * 10 + (text[i++] - '0');
    if (i == start) return std::nullopt;
    if (&part != &parts[2]) {
      if (i >= text.size() || text[i] != '.') return std::nullopt;
      ++i;
    }
  }
  if (i < text.size() && text[i] != '+' && text[i] != '-' && text[i] != ' ') return std::nullopt;
  if (parts[1] > 99 || parts[2] > 99) return std::nullopt;
  return parts[0] * 10000 + parts[1] * 100 + parts[2];
}

int version_of_code(long code) {
  if (code >= 10000) return static_cast<int>(code);
  // Before 2.9: X*1000 + Y*100 + Z, one digit of minor.
  return static_cast<int>(code / 1000 * 10000 + code / 100 % 10 * 100 + code % 100);
}

std::string version_string(int version) {
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." + std::to_string(version % 100);
}

}  // namespace meshbench::nccl
