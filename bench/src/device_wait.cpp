#include "bench/src/device_wait.hpp"

#include <thread>

namespace meshbench::bench {

bool wait_until_done(const WaitCalls& calls, std::chrono::duration<double> limit, WaitStats* stats) {
  WaitStats local;
  WaitStats& s = stats != nullptr ? *stats : local;
  const auto start = calls.now();
  for (;;) {
    ++s.polls;
    if (calls.done()) return true;
    const auto waited = calls.now() - start;
    if (waited > limit) return false;
    if (waited < kWaitSpinFor) {
      ++s.yields;
      if (calls.yield) calls.yield();
      else std::this_thread::yield();
    } else {
      ++s.sleeps;
      s.slept += kWaitSleep;
      if (calls.sleep) calls.sleep(kWaitSleep);
      else std::this_thread::sleep_for(kWaitSleep);
    }
  }
}

}  // namespace meshbench::bench
