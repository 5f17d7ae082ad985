#pragma once
#include <functional>

namespace meshbench {

// Runs `attempt` in a forked child and says whether the child finished: false when it died (a
// signal, or an exit other than returning from `attempt`). For C libraries that crash on damaged
// input (hwloc 2.9's XML import): the caller refuses the input instead of running the library on
// it in this process. An exception `attempt` throws is a clean refusal, not a death. True when no
// child can be made (the caller then goes on as without the check). With `cpu_seconds` above 0
// the child is also killed after that much CPU time and counts as dead: for libraries that loop
// forever on damaged input (HDF5 1.10 reading a damaged global heap).
bool survives_in_child(const std::function<void()>& attempt, int cpu_seconds = 0);

}  // namespace meshbench
