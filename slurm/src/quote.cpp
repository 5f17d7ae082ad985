#include "slurm/quote.hpp"

#include <algorithm>
#include <cstdio>

#include "common/error.hpp"

namespace meshbench::slurm {

namespace {

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7f;
}

void reject_nul(std::string_view value) {
  if (value.find('\0') != std::string_view::npos) throw InputError("a value holds a NUL byte; remove it");
}

}  // namespace

bool has_control_character(std::string_view value) { return std::any_of(value.begin(), value.end(), is_control); }

std::string shell_quote(std::string_view value) {
  reject_nul(value);
  std::string out;
  if (!has_control_character(value)) {
    // Inside '...' nothing is special but the closing quote itself: end, escaped quote, reopen.
    out = "'";
    for (char c : value) out += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  out = "$'";
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\'': out += "\\'"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (is_control(c)) {
          // Always two hex digits: bash's \xHH reads at most two, so a following digit is safe.
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += hex;
        } else {
          out += c;
        }
    }
  }
  return out + "'";
}

std::string shell_word(std::string_view value) {
  const bool plain = !value.empty() && std::all_of(value.begin(), value.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
  });
  return plain ? std::string(value) : shell_quote(value);
}

std::string sbatch_quote(std::string_view option, std::string_view value) {
  reject_nul(value);
  if (has_control_character(value)) {
    throw InputError(std::string(option) + " holds a newline or another control character, which an #SBATCH line cannot carry; remove it");
  }
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::vector<std::string> split_words(std::string_view option, std::string_view text) {
  reject_nul(text);
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {  // line continuation: nothing
      ++i;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string_view::npos) throw InputError(std::string(option) + " has an unbalanced ' quote");
      word.append(text.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && std::string_view("\\\"$`\n").find(text[j + 1]) != std::string_view::npos) {
          ++j;
          if (text[j] == '\n') continue;  // backslash-newline joins lines
        }
        word += text[j];
      }
      if (j >= text.size()) throw InputError(std::string(option) + " has an unbalanced \" quote");
      i = j;
    } else if (c == '\\') {
      if (i + 1 >= text.size()) throw InputError(std::string(option) + " ends with a lone backslash");
      word += text[++i];
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

}  // namespace meshbench::slurm
