#include "bench/backend_error.hpp"

#include "common/sizes.hpp"

namespace meshbench::bench {

namespace {
constexpr std::size_t kRanksShown = 16;  // a 1024-rank DP group would otherwise flood the line
}

std::string one_line(std::string_view text) {
  std::string out;
  bool blank = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      blank = !out.empty();
      continue;
    }
    if (blank) out += ' ';
    blank = false;
    out += c;
  }
  return out;
}

std::string describe_ranks(std::span<const int> ranks) {
  std::string out;
  auto add = [&](std::size_t i) { out += (out.empty() ? "" : ",") + std::to_string(ranks[i]); };
  if (ranks.size() <= kRanksShown) {
    for (std::size_t i = 0; i < ranks.size(); ++i) add(i);
    return out;
  }
  for (std::size_t i = 0; i < kRanksShown / 2; ++i) add(i);
  out += ",...";
  for (std::size_t i = ranks.size() - kRanksShown / 2; i < ranks.size(); ++i) add(i);
  return out + " (" + std::to_string(ranks.size()) + " ranks)";
}

std::string op_error_message(std::string_view library, const OpContext& c, std::string_view error, std::string_view detail) {
  std::string msg = std::string(library) + " error in " + c.op;
  if (c.bytes > 0) msg += " of " + format_bytes(c.bytes);
  if (!c.group_world_ranks.empty()) msg += ", group of world ranks " + describe_ranks(c.group_world_ranks);
  msg += " (this rank: " + std::to_string(c.world_rank) + (c.device.empty() ? "" : ", " + c.device) + "): " + one_line(error);
  const std::string d = one_line(detail);
  if (!d.empty() && d != one_line(error)) msg += ": " + d;
  return msg;
}

}  // namespace meshbench::bench
