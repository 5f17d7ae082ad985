#include "common/crash_guard.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define MESHBENCH_UNDER_ASAN 1
#endif
#endif

namespace meshbench {

bool survives_in_child(const std::function<void()>& attempt, int cpu_seconds) {
  std::fflush(nullptr);  // the child must not write this process's buffered output again
  const pid_t child = ::fork();
  if (child < 0) return true;
  if (child == 0) {
    for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU}) std::signal(sig, SIG_DFL);  // die of it, quietly
    if (cpu_seconds > 0) {
      // SIGXCPU at the limit, SIGKILL a second later should it be caught after all.
      const rlimit limit{static_cast<rlim_t>(cpu_seconds), static_cast<rlim_t>(cpu_seconds) + 1};
      ::setrlimit(RLIMIT_CPU, &limit);
    }
#ifdef MESHBENCH_UNDER_ASAN
    // Under the fuzzer (MESHBENCH_FUZZ builds) a sanitizer report in the child must not run
    // libFuzzer's death callback, which would save the input as the parent's crash.
    __sanitizer_set_death_callback(nullptr);
#endif
    try {
      attempt();
    } catch (...) {
    }
    ::_exit(0);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return true;
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace meshbench
