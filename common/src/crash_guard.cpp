#include "common/crash_guard.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fstream>

#include "common/error.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/common_interface_defs.h>
#define MESHBENCH_UNDER_ASAN 1
#endif
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MESHBENCH_SHADOW_MEMORY 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MESHBENCH_SHADOW_MEMORY 1
#endif

namespace meshbench {
namespace {

// How the child says it ended: one tag byte on the pipe, then the message, then exit status 0.
// Any other end (a signal, a limit, an exit of the attempt's own, whatever its status) is a death.
constexpr char kReturned = 'R';
constexpr char kRefused = 'I';
constexpr char kThrew = 'T';
// A message longer than this is cut, so that the child never blocks on a full pipe.
constexpr std::size_t kMessageLimit = 4096;

void limit_address_space(std::size_t extra_bytes) {
#ifndef MESHBENCH_SHADOW_MEMORY
  // /proc/self/statm's first field: the address space in use now, in pages.
  std::ifstream statm("/proc/self/statm");
  unsigned long long pages = 0;
  if (!(statm >> pages)) return;
  const auto in_use = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
  const rlimit limit{in_use + extra_bytes, in_use + extra_bytes};
  ::setrlimit(RLIMIT_AS, &limit);
#else
  (void)extra_bytes;
#endif
}

[[noreturn]] void end_child(int fd, char tag, const char* message) {
  const std::string text = tag + std::string(message, std::min(kMessageLimit, std::char_traits<char>::length(message)));
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::_exit(0);
}

[[noreturn]] void be_the_child(const std::function<void()>& attempt, const ChildLimits& limits, int fd) {
  for (const int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGXCPU}) std::signal(sig, SIG_DFL);  // die of it, quietly
  if (limits.cpu_seconds > 0) {
    // SIGXCPU at the limit, SIGKILL a second later should it be caught after all.
    const rlimit limit{static_cast<rlim_t>(limits.cpu_seconds), static_cast<rlim_t>(limits.cpu_seconds) + 1};
    ::setrlimit(RLIMIT_CPU, &limit);
  }
  if (limits.memory_bytes > 0) limit_address_space(limits.memory_bytes);
#ifdef MESHBENCH_UNDER_ASAN
  // Under the fuzzer (MESHBENCH_FUZZ builds) a sanitizer report in the child must not run
  // libFuzzer's death callback, which would save the input as the parent's crash.
  __sanitizer_set_death_callback(nullptr);
#endif
  try {
    attempt();
  } catch (const InputError& e) {
    end_child(fd, kRefused, e.what());
  } catch (const std::exception& e) {
    end_child(fd, kThrew, e.what());
  } catch (...) {
    end_child(fd, kThrew, "");
  }
  end_child(fd, kReturned, "");
}

}  // namespace

ChildOutcome run_in_child(const std::function<void()>& attempt, const ChildLimits& limits) {
  int fds[2];
  if (::pipe(fds) != 0) return {ChildOutcome::End::returned, ""};
  std::fflush(nullptr);  // the child must not write this process's buffered output again
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return {ChildOutcome::End::returned, ""};
  }
  if (child == 0) {
    ::close(fds[0]);
    be_the_child(attempt, limits, fds[1]);
  }
  ::close(fds[1]);
  ChildOutcome outcome;
  char buffer[512];
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      outcome.message.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return {ChildOutcome::End::returned, ""};
  }
  const char tag = outcome.message.empty() ? '\0' : outcome.message.front();
  const bool told = WIFEXITED(status) && WEXITSTATUS(status) == 0 && !outcome.message.empty();
  if (told) outcome.message.erase(0, 1);
  outcome.end = !told              ? ChildOutcome::End::died
                : tag == kReturned ? ChildOutcome::End::returned
                : tag == kRefused  ? ChildOutcome::End::refused
                : tag == kThrew    ? ChildOutcome::End::threw
                                   : ChildOutcome::End::died;
  if (outcome.end == ChildOutcome::End::returned || outcome.end == ChildOutcome::End::died) outcome.message.clear();
  return outcome;
}

bool survives_in_child(const std::function<void()>& attempt, int cpu_seconds) {
  return run_in_child(attempt, ChildLimits{cpu_seconds, 0}).end != ChildOutcome::End::died;
}

}  // namespace meshbench
