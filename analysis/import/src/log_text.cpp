#include "analysis/import/src/log_text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "common/error.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis::detail {

void refuse(const std::string& path, int line, const std::string& what) {
  throw InputError(path + ":" + std::to_string(line) + ": " + what);
}

std::string quoted(std::string_view line) {
  line = trim(line);
  return "'" + (line.size() > 60 ? one_line(line.substr(0, 57)) + "..." : one_line(line)) + "'";
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])) != 0) ++i;
    const std::size_t start = i;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])) == 0) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::optional<double> to_double(std::string_view s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  // strtod on a bounded copy: from_chars for double is not in every libstdc++ this builds with.
  const std::string text(s);
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::uint64_t> to_u64(std::string_view s) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> to_i64(std::string_view s) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

bool is_launcher_line(std::string_view line, bool& in_block) {
  const std::string_view t = trim(line);
  if (t.size() >= 20 && t.find_first_not_of('-') == std::string_view::npos) {
    in_block = !in_block;
    return true;
  }
  if (in_block) return true;
  if (starts_with(t, "srun: ") || starts_with(t, "slurmstepd: ")) return true;
  // Open MPI: "[host:12345] 1 more process has sent help message ..."
  if (!t.empty() && t.front() == '[') {
    const auto close = t.find(']');
    const auto colon = t.find(':');
    if (close != std::string_view::npos && colon != std::string_view::npos && colon < close &&
        to_u64(t.substr(colon + 1, close - colon - 1)))
      return true;
  }
  return false;
}

std::string_view unquoted(std::string_view line) {
  std::string_view t = trim(line);
  while (!t.empty() && t.front() == '>') t = trim(t.substr(1));
  return t;
}

void skip_line(ImportedLog& log, const ImportOptions& options, int line, std::string_view text, const std::string& refusal) {
  if (options.strict) refuse(log.path, line, refusal);
  constexpr std::size_t kKept = 5;
  ++log.skipped;
  if (log.skipped_first.size() < kKept) log.skipped_first.emplace_back(line, one_line(trim(text)));
}

namespace {

// The program a command-line token names when its file name ends in `suffix` (or `suffix` and
// "_mpi", which it drops); "" otherwise.
std::string_view program_of_token(std::string_view token, std::string_view suffix) {
  const auto slash = token.rfind('/');
  if (slash != std::string_view::npos) token.remove_prefix(slash + 1);
  if (token.size() > 4 && token.substr(token.size() - 4) == "_mpi") token.remove_suffix(4);
  return token.size() > suffix.size() && token.substr(token.size() - suffix.size()) == suffix ? token : std::string_view();
}

// NAME=VALUE with NAME a variable's name: {NAME, VALUE without its quotes}.
std::optional<std::pair<std::string, std::string>> variable_assignment(std::string_view token) {
  const auto eq = token.find('=');
  if (eq == 0 || eq == std::string_view::npos) return std::nullopt;
  const std::string_view name = token.substr(0, eq);
  const bool identifier =
      std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }) &&
      std::isdigit(static_cast<unsigned char>(name.front())) == 0;
  if (!identifier) return std::nullopt;
  std::string_view value = token.substr(eq + 1);
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  return std::pair{std::string(name), std::string(value)};
}

}  // namespace

std::string program_on_command_line(std::string_view line, std::string_view suffix) {
  for (std::string_view token : tokens(line)) {
    if (const auto program = program_of_token(token, suffix); !program.empty()) return std::string(program);
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> environment_on_command_line(std::string_view line, std::string_view suffix) {
  const auto t = tokens(line);
  std::vector<std::pair<std::string, std::string>> env;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (!program_of_token(t[i], suffix).empty()) return env;
    if ((t[i] == "-genv" || t[i] == "-env") && i + 2 < t.size()) {
      if (auto a = variable_assignment(std::string(t[i + 1]) + "=" + std::string(t[i + 2]))) env.push_back(std::move(*a));
      i += 2;
    } else if (starts_with(t[i], "--export=")) {
      std::string_view list = t[i].substr(9);
      while (!list.empty()) {
        const std::size_t comma = std::min(list.find(','), list.size());
        if (auto a = variable_assignment(list.substr(0, comma))) env.push_back(std::move(*a));
        list.remove_prefix(std::min(comma + 1, list.size()));
      }
    } else if (auto a = variable_assignment(t[i])) {
      env.push_back(std::move(*a));
    }
  }
  return {};
}

std::optional<int> launched_ranks(std::string_view line, std::string_view program_prefix) {
  const auto t = tokens(line);
  int ranks = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    std::string_view name = t[i];
    if (const auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
    if (starts_with(name, program_prefix)) return ranks;
    const auto equals = t[i].find('=');
    const std::string_view option = t[i].substr(0, equals);
    if (option != "-np" && option != "-n" && option != "--np" && option != "--n" && option != "--ntasks") continue;
    const std::string_view value = equals == std::string_view::npos ? (i + 1 < t.size() ? t[i + 1] : "") : t[i].substr(equals + 1);
    const auto n = to_i64(value);
    if (n && *n > 0 && *n <= (1 << 24)) ranks = static_cast<int>(*n);
  }
  return std::nullopt;
}

}  // namespace meshbench::analysis::detail
