#include "bench/io/src/io_folder.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <ctime>

#include "common/mpi/host_comm.hpp"

namespace meshbench::bench::io {

namespace {

constexpr std::size_t kPathMax = 4096;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The handler reads fixed buffers only; a path is published by writing it, then the flag.
char g_folder[kPathMax];
char g_own[kPathMax];
char g_shared[kPathMax];
std::atomic<bool> g_armed{false};
struct sigaction g_previous[3];

void copy_path(char* to, const std::string& from) {
  const std::size_t n = std::min(from.size(), kPathMax - 1);
  std::memcpy(to, from.data(), n);
  to[n] = '\0';
}

extern "C" void remove_and_reraise(int sig) {
  if (g_armed.load()) {
    if (g_own[0] != '\0') ::unlink(g_own);
    if (g_shared[0] != '\0') ::unlink(g_shared);
    ::rmdir(g_folder);  // fails while another rank's file is still there; the last rank's succeeds
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

std::string unique_folder_name() {
  char stamp[32];
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
  return "meshbench-io-" + std::string(stamp) + "-" + mpi::this_host_name() + "-" + std::to_string(::getpid());
}

CleanupOnSignal::CleanupOnSignal(const std::string& folder) {
  copy_path(g_folder, folder);
  g_own[0] = g_shared[0] = '\0';
  g_armed.store(true);
  struct sigaction action {};
  action.sa_handler = remove_and_reraise;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &action, &g_previous[i]);
}

CleanupOnSignal::~CleanupOnSignal() {
  g_armed.store(false);
  for (std::size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &g_previous[i], nullptr);
}

void CleanupOnSignal::set_files(const std::string& own_file, const std::string& shared_file) {
  g_armed.store(false);
  copy_path(g_own, own_file);
  copy_path(g_shared, shared_file);
  g_armed.store(true);
}

void remove_file(const std::string& path) {
  if (!path.empty()) ::unlink(path.c_str());
}

}  // namespace meshbench::bench::io
