#include <algorithm>
#include <cctype>
#include <charconv>

#include "analysis/logs/nccl_log.hpp"

namespace meshbench::analysis {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

}  // namespace

// `mpirun --tag-output` writes "[1,0]<stdout>:", `srun -l` writes "0: ".
std::string_view strip_launcher_prefix(std::string_view s) {
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find("]<std");
    const auto colon = s.find(">:");
    if (close != std::string_view::npos && colon != std::string_view::npos && colon > close &&
        s.substr(1, close - 1).find(',') != std::string_view::npos) {
      s.remove_prefix(colon + 2);
      if (!s.empty() && s.front() == ' ') s.remove_prefix(1);
      return s;
    }
  }
  std::size_t i = 0;
  while (i < s.size() && s[i] == ' ') ++i;
  std::size_t j = i;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) != 0) ++j;
  if (j > i && j + 1 < s.size() && s[j] == ':' && s[j + 1] == ' ') s.remove_prefix(j + 2);
  return s;
}

std::optional<NcclLine> parse_nccl_line(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n')) s.remove_suffix(1);
  s = strip_launcher_prefix(s);
  NcclLine out;
  // NCCL_DEBUG_TIMESTAMP_FORMAT's prefix (default "[%F %T] ", on WARN lines by default).
  if (!s.empty() && s.front() == '[') {
    const auto close = s.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    out.timestamp = std::string(s.substr(1, close - 1));
    s.remove_prefix(close + 1);
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  }
  constexpr std::string_view kVersion = "NCCL version ";
  if (s.substr(0, kVersion.size()) == kVersion) {  // the VERSION level prints no host prefix
    out.level = "VERSION";
    out.message = std::string(s);
    return out;
  }
  // host:pid:tid
  const auto space = s.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const std::string_view origin = s.substr(0, space);
  const auto c2 = origin.rfind(':');
  const auto c1 = c2 == std::string_view::npos || c2 == 0 ? std::string_view::npos : origin.rfind(':', c2 - 1);
  if (c1 == std::string_view::npos || !all_digits(origin.substr(c1 + 1, c2 - c1 - 1)) || !all_digits(origin.substr(c2 + 1))) {
    return std::nullopt;
  }
  out.host = std::string(origin.substr(0, c1));
  // A pid or tid past INT_MAX (a damaged line) makes it no NCCL line, not an out_of_range.
  if (std::from_chars(origin.data() + c1 + 1, origin.data() + c2, out.pid).ec != std::errc() ||
      std::from_chars(origin.data() + c2 + 1, origin.data() + origin.size(), out.tid).ec != std::errc()) {
    return std::nullopt;
  }
  s.remove_prefix(space + 1);
  // [dev]
  if (s.empty() || s.front() != '[') return std::nullopt;
  const auto dev_end = s.find(']');
  if (dev_end == std::string_view::npos) return std::nullopt;
  out.dev = std::string(s.substr(1, dev_end - 1));
  s.remove_prefix(dev_end + 1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  constexpr std::string_view kInfo = "NCCL INFO ";
  constexpr std::string_view kWarn = "NCCL WARN ";
  if (s.substr(0, kInfo.size()) == kInfo) {
    out.level = "INFO";
    out.message = std::string(s.substr(kInfo.size()));
    return out;
  }
  // "file.cc:123 NCCL WARN msg", newer NCCL "file.cc:123 (function) NCCL WARN msg".
  const auto warn = s.find(kWarn);
  if (warn == std::string_view::npos) return std::nullopt;
  std::string_view where = s.substr(0, warn);
  while (!where.empty() && where.back() == ' ') where.remove_suffix(1);
  out.location = std::string(where.substr(0, where.find(' ')));
  out.level = "WARN";
  out.message = std::string(s.substr(warn + kWarn.size()));
  return out;
}

std::string_view to_string(NcclTransport t) {
  switch (t) {
    case NcclTransport::p2p: return "P2P";
    case NcclTransport::p2p_mnnvl: return "P2P/MNNVL";
    case NcclTransport::shm: return "SHM";
    case NcclTransport::net: return "NET";
    case NcclTransport::net_gdrdma: return "NET/GDRDMA";
    case NcclTransport::other: return "other";
  }
  return "other";
}

NcclTransport classify_nccl_transport(std::string_view via) {
  auto starts = [&](std::string_view p) { return via.substr(0, p.size()) == p; };
  if (starts("P2P/MNNVL")) return NcclTransport::p2p_mnnvl;
  if (starts("P2P")) return NcclTransport::p2p;
  if (starts("SHM")) return NcclTransport::shm;
  if (starts("NET")) return via.find("/GDRDMA") != std::string_view::npos ? NcclTransport::net_gdrdma : NcclTransport::net;
  return NcclTransport::other;
}

}  // namespace meshbench::analysis
