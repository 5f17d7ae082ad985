#include <algorithm>
#include <cctype>
#include <fstream>
#include <istream>

#include "analysis/doctor/doctor_env.hpp"
#include "common/error.hpp"
#include "common/strings.hpp"
#include "results/environment.hpp"

namespace meshbench::analysis {

namespace {

bool valid_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front())) != 0) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; });
}

bool strip_word(std::string_view& s, std::string_view word) {
  if (s.size() > word.size() && s.substr(0, word.size()) == word && std::isspace(static_cast<unsigned char>(s[word.size()])) != 0) {
    s = trim(s.substr(word.size()));
    return true;
  }
  return false;
}

// Returns the value and whether it may expand ($ or backquote outside single quotes).
std::pair<std::string, bool> parse_value(std::string_view raw, const std::string& where) {
  if (!raw.empty() && (raw.front() == '"' || raw.front() == '\'')) {
    const char quote = raw.front();
    const auto close = raw.find(quote, 1);
    if (close == std::string_view::npos) throw InputError(where + ": unterminated " + std::string(1, quote) + " quote");
    const auto rest = trim(raw.substr(close + 1));
    if (!rest.empty() && rest.front() != '#') throw InputError(where + ": unexpected text after the quoted value");
    const std::string value(raw.substr(1, close - 1));
    return {value, quote == '"' && value.find_first_of("$`") != std::string::npos};
  }
  // Unquoted: a comment starts at a '#' that follows whitespace, as in the shell.
  std::string_view value = raw;
  for (std::size_t i = 1; i < raw.size(); ++i) {
    if (raw[i] == '#' && std::isspace(static_cast<unsigned char>(raw[i - 1])) != 0) {
      value = raw.substr(0, i);
      break;
    }
  }
  value = trim(value);
  if (value.find_first_of(" \t") != std::string_view::npos && value.find("$(") == std::string_view::npos) {
    throw InputError(where + ": a value with spaces must be quoted");
  }
  return {std::string(value), value.find_first_of("$`") != std::string_view::npos};
}

void put(EnvTemplate& t, EnvTemplateEntry entry) {
  if (results::looks_like_secret(entry.name)) {
    // A template that carries a credential must not make doctor print or store it.
    if (std::find(t.ignored_secret_names.begin(), t.ignored_secret_names.end(), entry.name) == t.ignored_secret_names.end()) {
      t.ignored_secret_names.push_back(entry.name);
    }
    return;
  }
  auto same = std::find_if(t.entries.begin(), t.entries.end(), [&](const auto& e) { return e.name == entry.name; });
  if (same != t.entries.end()) {
    *same = std::move(entry);  // the later line wins, as when the shell sources the file
  } else {
    t.entries.push_back(std::move(entry));
  }
}

}  // namespace

EnvTemplate builtin_env_template() {
  EnvTemplate t;
  t.source = "built-in (seed checklist)";
  t.builtin = true;
  for (const auto& [name, value] : std::initializer_list<std::pair<const char*, const char*>>{{"FI_PROVIDER", "efa"},
                                                                                              {"FI_EFA_USE_DEVICE_RDMA", "1"},
                                                                                              {"NCCL_PROTO", "LL128"},
                                                                                              {"NCCL_BUFFSIZE", "67108864"},
                                                                                              {"NCCL_P2P_NET_CHUNKSIZE", "4194304"},
                                                                                              {"NCCL_NET_GDR_LEVEL", "PHB"}}) {
    t.entries.push_back({name, value, 0, false, false});
  }
  return t;
}

EnvTemplate parse_env_template(std::istream& in, const std::string& source) {
  EnvTemplate t;
  t.source = source;
  std::string raw;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = source + ":" + std::to_string(line_no);
    if (strip_word(line, "unset")) {
      std::string_view names = line.substr(0, line.find('#'));
      while (!(names = trim(names)).empty()) {
        const auto end = names.find_first_of(" \t");
        const std::string name(names.substr(0, end));
        if (!valid_name(name)) throw InputError(where + ": '" + name + "' is not a variable name");
        put(t, {name, "", line_no, false, true});
        names = end == std::string_view::npos ? std::string_view() : names.substr(end);
      }
      continue;
    }
    strip_word(line, "export");
    const auto eq = line.find('=');
    const std::string name(trim(line.substr(0, eq)));
    if (eq == std::string_view::npos || !valid_name(name)) {
      throw InputError(where + ": expected KEY=VALUE, 'export KEY=VALUE' or 'unset KEY'");
    }
    auto [value, expands] = parse_value(trim(line.substr(eq + 1)), where);
    put(t, {name, std::move(value), line_no, expands, false});
  }
  return t;
}

EnvTemplate load_env_template(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError("cannot read the environment template '" + path.string() + "'; give an env file with --env-template");
  auto t = parse_env_template(in, path.string());
  if (t.entries.empty()) throw InputError("the environment template '" + path.string() + "' sets no variable");
  return t;
}

bool is_behaviour_variable(std::string_view name) {
  if (name == "CUDA_VISIBLE_DEVICES" || name.rfind("MESHBENCH_TEST_", 0) == 0) return false;
  if (name == "LD_LIBRARY_PATH" || name == "LD_PRELOAD") return true;
  for (std::string_view prefix : {"NCCL_", "FI_", "OFI_NCCL_", "CUDA_", "TORCH_NCCL_", "NVSHMEM_", "RDMAV_", "UCX_", "MESHBENCH_"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

}  // namespace meshbench::analysis
