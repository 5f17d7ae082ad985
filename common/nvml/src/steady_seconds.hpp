#pragma once
// The monotonic clock in seconds, for reading ages and sampling intervals (never wall time).
#include <chrono>

namespace meshbench::nvml {

inline double steady_seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace meshbench::nvml
