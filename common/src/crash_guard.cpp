#include "common/crash_guard.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>

namespace meshbench {

bool survives_in_child(const std::function<void()>& attempt) {
  std::fflush(nullptr);  // the child must not write this process's buffered output again
  const pid_t child = ::fork();
  if (child < 0) return true;
  if (child == 0) {
    for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) std::signal(sig, SIG_DFL);  // die of it, quietly
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
