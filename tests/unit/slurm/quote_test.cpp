#include <gtest/gtest.h>

#include "common/error.hpp"
#include "slurm/quote.hpp"
#include "test_util.hpp"

namespace meshbench::slurm {
namespace {

using testing::run;

// Values that would run a command if pasted into a script unquoted or naively quoted.
const std::vector<std::string> kHostile = {"$(touch /nonexistent/x)",
                                           "`id`",
                                           "a; id",
                                           "it's",
                                           "\"double\"",
                                           "back\\slash",
                                           "new\nline",
                                           "tab\tand\rcr",
                                           "$HOME",
                                           "*",
                                           "~root",
                                           "#comment",
                                           "{a,b}",
                                           "'$(id)'",
                                           "\"$(id)\"",
                                           "\x1b[31mred",
                                           "",
                                           " leading space",
                                           "ünïcödé",
                                           "!event",
                                           "a\\'b"};

TEST(slurmQuote, ShellQuoteBashReadsBackExactlyTheValue) {
  for (const auto& value : kHostile) {
    const auto r = run({"bash", "-c", "printf %s " + shell_quote(value)});
    EXPECT_EQ(r.status, 0) << value;
    EXPECT_EQ(r.output, value) << "quoted as " << shell_quote(value);
  }
}

TEST(slurmQuote, ShellQuoteNeverEmitsARawControlCharacter) {
  for (const auto& value : kHostile) {
    EXPECT_FALSE(has_control_character(shell_quote(value))) << shell_quote(value);
    EXPECT_FALSE(has_control_character(shell_word(value))) << shell_word(value);
  }
  EXPECT_EQ(shell_quote("new\nline"), "$'new\\nline'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

TEST(slurmQuote, ShellWordLeavesOnlySafeWordsUnquoted) {
  EXPECT_EQ(shell_word("--tp"), "--tp");
  EXPECT_EQ(shell_word("/fsx/meshbench"), "/fsx/meshbench");
  EXPECT_EQ(shell_word("a b"), "'a b'");
  EXPECT_EQ(shell_word(""), "''");
  for (const auto& value : kHostile) {
    const auto r = run({"bash", "-c", "printf %s " + shell_word(value)});
    EXPECT_EQ(r.output, value) << "written as " << shell_word(value);
  }
}

TEST(slurmQuote, SbatchQuoteEscapesQuotesAndBackslashes) {
  EXPECT_EQ(sbatch_quote("--job-name", "plain"), "\"plain\"");
  EXPECT_EQ(sbatch_quote("--job-name", "a \"b\" #c \\d"), "\"a \\\"b\\\" #c \\\\d\"");
}

TEST(slurmQuote, SbatchQuoteRejectsLineBreaksAndControlCharacters) {
  for (const std::string& bad : std::vector<std::string>{"a\nb", "a\rb", "tab\t", "bell\a"}) {
    try {
      (void)sbatch_quote("--job-name", bad);
      FAIL() << "accepted " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("--job-name"), std::string::npos);
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one-line message";
    }
  }
}

TEST(slurmQuote, SplitWordsSplitsLikeAShellWithoutExpanding) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_words("x", "--tp 2  --ep\t4"), (V{"--tp", "2", "--ep", "4"}));
  EXPECT_EQ(split_words("x", "'a b' \"c d\" e\\ f"), (V{"a b", "c d", "e f"}));
  EXPECT_EQ(split_words("x", "$HOME * ~ `id` $(id)"), (V{"$HOME", "*", "~", "`id`", "$(id)"}));
  EXPECT_EQ(split_words("x", "\"a \\\"q\\\" \\$x \\n\""), (V{"a \"q\" $x \\n"}));
  EXPECT_EQ(split_words("x", "'' \"\""), (V{"", ""}));
  EXPECT_EQ(split_words("x", "a \\\n b"), (V{"a", "b"}));
  EXPECT_EQ(split_words("x", "ab'cd'\"ef\""), (V{"abcdef"}));
  EXPECT_TRUE(split_words("x", "   ").empty());
}

TEST(slurmQuote, SplitWordsRejectsUnbalancedQuotes) {
  EXPECT_THROW(split_words("--run-args", "'open"), InputError);
  EXPECT_THROW(split_words("--run-args", "\"open"), InputError);
  EXPECT_THROW(split_words("--run-args", "trailing\\"), InputError);
}

}  // namespace
}  // namespace meshbench::slurm
