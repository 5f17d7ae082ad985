#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::slurm {

// One bash word that expands to exactly `value`, whatever it holds: '...' for printable text,
// ANSI-C $'...' when it holds control characters (so a generated script never contains a raw
// newline or escape sequence from user input). Throws InputError for a NUL byte.
std::string shell_quote(std::string_view value);

// Like shell_quote, but leaves a word of only safe characters (letters, digits, _ . / : = @ % + , -)
// unquoted, for readability: "--tp" rather than "'--tp'".
std::string shell_word(std::string_view value);

// `value` for an "#SBATCH --option=VALUE" line, in the syntax of sbatch's own parser (double
// quotes, backslash escapes; an unquoted '#' would start a comment). sbatch reads these lines
// before the shell does, and no quoting survives a line break there: control characters
// (newline, CR, tab, ...) are rejected with an InputError naming `option`.
std::string sbatch_quote(std::string_view option, std::string_view value);

// Splits a command line into words as a POSIX shell would, without any expansion: '...',
// "..." (backslash escapes \ " $ ` and newline), backslash outside quotes. "$HOME", "*" and
// "~" stay literal. Throws InputError naming `option` for an unbalanced quote.
std::vector<std::string> split_words(std::string_view option, std::string_view text);

// True when `value` holds a control character (below 0x20, or DEL).
bool has_control_character(std::string_view value);

}  // namespace meshbench::slurm
