#pragma once
// How the NCCL backend waits for work on the GPU (an op, a batch, a copy, a communicator that
// is still initialising): by polling, never blocking inside CUDA, so that NCCL's asynchronous
// errors and the deadline are seen while it waits. Free of CUDA and NCCL: the calls come in as
// functions, so that the loop is unit-tested with a fake op and a fake clock.
#include <chrono>
#include <functional>

namespace meshbench::bench {

struct WaitCalls {
  using Clock = std::chrono::steady_clock;
  std::function<bool()> done;  // polls once; throws on an error
  std::function<Clock::time_point()> now = [] { return Clock::now(); };
  std::function<void(std::chrono::microseconds)> sleep;  // default: std::this_thread::sleep_for
  std::function<void()> yield;                           // default: std::this_thread::yield
};

struct WaitStats {
  long polls = 0, yields = 0, sleeps = 0;
  std::chrono::microseconds slept{0};
};

// Every idle pass gives the core away: during the first kWaitSpinFor a yield (an op that ends
// within it is seen at once, so a batch's host time is not stretched), then a kWaitSleep sleep,
// so that over a long op the core is free for NCCL's proxy thread, which drives the network
// transfers and often shares the rank's core (one core per rank under srun --cpu-bind=cores or
// Open MPI's default binding). Returns false once `limit` has passed without completion.
bool wait_until_done(const WaitCalls& calls, std::chrono::duration<double> limit, WaitStats* stats = nullptr);

inline constexpr std::chrono::microseconds kWaitSpinFor{1000};
inline constexpr std::chrono::microseconds kWaitSleep{50};

}  // namespace meshbench::bench
