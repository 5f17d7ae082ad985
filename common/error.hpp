#pragma once
#include <stdexcept>
#include <string>

namespace meshbench {

// Exit statuses: one number, one meaning, in every subcommand (docs/architecture.md, "Exit
// statuses"). A script tells a verdict from a broken run by the number alone.
inline constexpr int kExitOk = 0;
// The check ran and found a problem: a regression, wrong results, a doctor FAIL.
inline constexpr int kExitFailure = 1;
// The user's input is wrong; nothing was written.
inline constexpr int kExitBadInput = 2;
// compare and history: the runs at hand cannot support either answer (more runs would).
inline constexpr int kExitInconclusive = 3;
// A measuring command (run, io, calibrate) ended early by a fault: a lost or hung peer, a signal,
// a full results disk. Every rank exits with it; the points stored before it are kept.
inline constexpr int kExitRunFault = 4;

// Bad input: the message names the problem and the way out, in one line.
// main() prints it as "meshbench: error: <what>" and exits with kExitBadInput.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace meshbench
