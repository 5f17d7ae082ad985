#pragma once
#include <stdexcept>
#include <string>

namespace meshbench {

// Exit statuses shared by every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;   // the check ran and found a problem (regression, FAIL, fault)
inline constexpr int kExitBadInput = 2;  // the user's input is wrong; nothing was written
// compare and history: the runs at hand cannot support either answer (more runs would).
inline constexpr int kExitInconclusive = 3;

// Bad input: the message names the problem and the way out, in one line.
// main() prints it as "meshbench: error: <what>" and exits with kExitBadInput.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace meshbench
