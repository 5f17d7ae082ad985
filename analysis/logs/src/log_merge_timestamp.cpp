#include <array>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>

#include "analysis/logs/log_merge.hpp"
#include "analysis/logs/nccl_log.hpp"

namespace meshbench::analysis {

namespace {

constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// A small cursor over the line: each reader consumes on success and reports failure otherwise.
struct Cursor {
  std::string_view s;
  std::size_t i = 0;
  bool digits(int count, int& value) {
    if (i + static_cast<std::size_t>(count) > s.size()) return false;
    value = 0;
    for (int k = 0; k < count; ++k) {
      const char c = s[i + static_cast<std::size_t>(k)];
      if (std::isdigit(static_cast<unsigned char>(c)) == 0) return false;
      value = value * 10 + (c - '0');
    }
    i += static_cast<std::size_t>(count);
    return true;
  }
  bool lit(char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  void spaces() {
    while (i < s.size() && s[i] == ' ') ++i;
  }
  // ".123456" -> nanoseconds; any number of digits, extra precision dropped.
  std::int64_t fraction() {
    if (!lit('.') && !lit(',')) return 0;
    std::int64_t ns = 0;
    int n = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0) {
      if (n < 9) {
        ns = ns * 10 + (s[i] - '0');
        ++n;
      }
      ++i;
    }
    for (; n < 9; ++n) ns *= 10;
    return ns;
  }
  bool month(int& m) {
    for (std::size_t k = 0; k < kMonths.size(); ++k) {
      if (s.substr(i, 3) == kMonths[k]) {
        m = static_cast<int>(k);
        i += 3;
        return true;
      }
    }
    return false;
  }
  bool clock(std::tm& tm) { return digits(2, tm.tm_hour) && lit(':') && digits(2, tm.tm_min) && lit(':') && digits(2, tm.tm_sec); }
};

// seconds * 1e9 + frac + base, or nothing when that leaves int64 (ns since 1970 end in 2262; a
// year like 9999 or a 30-digit uptime, as a damaged log can hold, has no usable time).
std::optional<std::int64_t> checked_ns(std::int64_t seconds, std::int64_t frac_ns, std::int64_t base_ns) {
  std::int64_t ns = 0;
  if (__builtin_mul_overflow(seconds, 1000000000LL, &ns) || __builtin_add_overflow(ns, frac_ns, &ns) ||
      __builtin_add_overflow(ns, base_ns, &ns)) {
    return std::nullopt;
  }
  return ns;
}

std::optional<LogTimestamp> at(std::tm tm, bool utc, std::int64_t offset_s, std::int64_t frac_ns, const char* format) {
  tm.tm_isdst = -1;
  const std::time_t t = utc ? timegm(&tm) : mktime(&tm);
  const auto ns = checked_ns(static_cast<std::int64_t>(t) - offset_s, frac_ns, 0);
  if (!ns) return std::nullopt;
  return LogTimestamp{*ns, format};
}

// YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|+HH:MM|+HHMM]
std::optional<LogTimestamp> iso(Cursor& c) {
  std::tm tm{};
  if (!(c.digits(4, tm.tm_year) && c.lit('-') && c.digits(2, tm.tm_mon) && c.lit('-') && c.digits(2, tm.tm_mday))) {
    return std::nullopt;
  }
  if (!(c.lit('T') || c.lit(' ')) || !c.clock(tm)) return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::int64_t frac = c.fraction();
  bool utc = false;
  std::int64_t offset = 0;
  if (c.lit('Z')) {
    utc = true;
  } else if (c.i < c.s.size() && (c.s[c.i] == '+' || c.s[c.i] == '-')) {
    const bool minus = c.s[c.i] == '-';
    Cursor z = c;
    ++z.i;
    int hh = 0;
    int mm = 0;
    if (z.digits(2, hh)) {
      z.lit(':');  // "+00:00" and journalctl's "+0000" alike
      if (z.digits(2, mm)) {
        c = z;
        utc = true;
        offset = (minus ? -1 : 1) * (hh * 3600 + mm * 60);
      }
    }
  }
  return at(tm, utc, offset, frac, "iso");
}

// dmesg -T: "Tue Jan  2 13:45:01 2024" (local time)
std::optional<LogTimestamp> dmesg_human(Cursor& c) {
  std::tm tm{};
  if (c.i + 4 > c.s.size() || std::isalpha(static_cast<unsigned char>(c.s[c.i])) == 0) return std::nullopt;
  c.i += 3;
  c.spaces();
  if (!c.month(tm.tm_mon)) return std::nullopt;
  c.spaces();
  if (!(c.digits(2, tm.tm_mday) || c.digits(1, tm.tm_mday))) return std::nullopt;
  c.spaces();
  if (!c.clock(tm)) return std::nullopt;
  c.spaces();
  if (!c.digits(4, tm.tm_year)) return std::nullopt;
  tm.tm_year -= 1900;
  return at(tm, false, 0, 0, "dmesg-T");
}

// dmesg: "[  12.345678]" seconds since boot
std::optional<LogTimestamp> dmesg_raw(Cursor& c, const MergeOptions& o) {
  c.spaces();
  std::int64_t seconds = 0;
  std::size_t start = c.i;
  while (c.i < c.s.size() && std::isdigit(static_cast<unsigned char>(c.s[c.i])) != 0) {
    if (seconds > 1'000'000'000'000) return std::nullopt;  // no uptime is 30,000 years
    seconds = seconds * 10 + (c.s[c.i++] - '0');
  }
  if (c.i == start || c.i >= c.s.size() || c.s[c.i] != '.') return std::nullopt;
  const std::int64_t frac = c.fraction();
  const std::int64_t boot = o.boot_time_ns.value_or(boot_time_ns_from_proc());
  const auto ns = checked_ns(seconds, frac, boot);
  if (!ns) return std::nullopt;
  return LogTimestamp{*ns, "dmesg"};
}

// syslog / journalctl short: "Jan  2 13:45:01" (local time, no year)
std::optional<LogTimestamp> syslog(Cursor& c, const MergeOptions& o) {
  std::tm tm{};
  if (!c.month(tm.tm_mon)) return std::nullopt;
  c.spaces();
  if (!(c.digits(2, tm.tm_mday) || c.digits(1, tm.tm_mday))) return std::nullopt;
  if (!c.lit(' ') || !c.clock(tm)) return std::nullopt;
  const std::int64_t frac = c.fraction();
  if (o.year) {
    tm.tm_year = *o.year - 1900;
  } else {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    tm.tm_year = local.tm_year;
  }
  return at(tm, false, 0, frac, "syslog");
}

}  // namespace

std::optional<LogTimestamp> parse_log_timestamp(std::string_view line, const MergeOptions& options) {
  const std::string_view s = strip_launcher_prefix(line);
  if (s.empty()) return std::nullopt;
  if (s.front() == '[') {
    const auto close = s.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view inner = s.substr(1, close - 1);
    for (int kind = 0; kind < 3; ++kind) {
      Cursor c{inner};
      std::optional<LogTimestamp> t = kind == 0 ? iso(c) : kind == 1 ? dmesg_human(c) : dmesg_raw(c, options);
      c.spaces();
      if (t && c.i == inner.size()) return t;
    }
    return std::nullopt;
  }
  Cursor c{s};
  if (auto t = iso(c)) return t;
  Cursor d{s};
  return syslog(d, options);
}

std::int64_t boot_time_ns_from_proc() {
  std::ifstream in("/proc/stat");
  std::string key;
  long long value = 0;
  while (in >> key) {
    if (key == "btime" && (in >> value)) return value * 1000000000LL;
    in.ignore(1 << 20, '\n');
  }
  return 0;
}

std::string format_utc(std::int64_t ns) {
  std::int64_t seconds = ns / 1000000000LL;
  std::int64_t rest = ns % 1000000000LL;
  if (rest < 0) {
    rest += 1000000000LL;
    --seconds;
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[48];
  const std::size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof(buf) - n, ".%06lldZ", static_cast<long long>(rest / 1000));
  return buf;
}

}  // namespace meshbench::analysis
