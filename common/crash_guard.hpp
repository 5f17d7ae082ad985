#pragma once
#include <cstddef>
#include <functional>
#include <string>

namespace meshbench {

// What a forked child may use before it counts as dead. 0: no limit.
struct ChildLimits {
  // CPU time, for libraries that loop forever on damaged input (HDF5 1.10 reading a damaged
  // global heap).
  int cpu_seconds = 0;
  // Address space the child may add to what it has when forked, for libraries that size an
  // allocation from a damaged length (HDF5 1.10 converting a variable-length value: 1.8 GB for a
  // file of 25 KB). Not applied in sanitizer builds, whose shadow memory is terabytes of address
  // space; tests/sanitizers/env.sh caps their allocations instead.
  std::size_t memory_bytes = 0;
};

// How a child that ran `attempt` ended.
struct ChildOutcome {
  enum class End {
    returned,  // `attempt` returned
    refused,   // `attempt` threw an InputError; `message` holds its text
    threw,     // `attempt` threw anything else (std::bad_alloc at the memory limit); `message` holds what() if known
    died,      // a signal, a limit, or an exit of its own
  };
  End end = End::died;
  std::string message;
};

// Runs `attempt` in a forked child, under `limits`, and says how it ended. For C libraries that
// crash on damaged input (hwloc 2.9's XML import, HDF5 1.10): the caller refuses the input
// instead of running the library on it in this process, and passes a refusal on without running
// the input again. End::returned when no child can be made (the caller then goes on as without
// the check).
ChildOutcome run_in_child(const std::function<void()>& attempt, const ChildLimits& limits = {});

// run_in_child, told as whether the child finished: an exception `attempt` throws is a clean
// refusal, not a death.
bool survives_in_child(const std::function<void()>& attempt, int cpu_seconds = 0);

}  // namespace meshbench
