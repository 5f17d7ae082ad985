#include "common/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace meshbench {

namespace fs = std::filesystem;

AtomicWriteError::AtomicWriteError(Step step, const std::string& call, std::string reason, std::string temp)
    : std::runtime_error(call + ": " + reason), step_(step), reason_(std::move(reason)), temp_(std::move(temp)) {}

namespace {

using Step = AtomicWriteError::Step;

bool exists_as_name(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

// A hidden name beside the target, unique to this process and call: ".plan.json.1234.0".
int create_temp(const fs::path& target, std::string& temp) {
  static std::atomic<unsigned> counter{0};
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  for (;;) {
    temp = (dir / ("." + target.filename().string() + "." + std::to_string(::getpid()) + "." + std::to_string(counter++))).string();
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
}

void write_all(int fd, std::string_view content, const std::string& temp) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw AtomicWriteError(Step::write, "write", std::strerror(errno), temp);
    }
    done += static_cast<std::size_t>(n);
  }
}

// Without `replace`: link() fails when the name exists, so a file created meanwhile is never
// overwritten. A filesystem without hard links falls back to a check and a rename (a narrow
// race, but no clobber of a file that was there before the write started).
void move_into_place(const std::string& temp, const std::string& path, bool replace) {
  if (replace) {
    if (::rename(temp.c_str(), path.c_str()) != 0) throw AtomicWriteError(Step::rename, "rename", std::strerror(errno), temp);
    return;
  }
  if (::link(temp.c_str(), path.c_str()) == 0) {
    ::unlink(temp.c_str());
    return;
  }
  const int link_errno = errno;
  if (link_errno == EPERM || link_errno == ENOTSUP || link_errno == ENOSYS) {
    if (!exists_as_name(path) && ::rename(temp.c_str(), path.c_str()) == 0) return;
  }
  if (link_errno == EEXIST || exists_as_name(path)) throw AtomicWriteError(Step::exists, "link", std::strerror(EEXIST), temp);
  throw AtomicWriteError(Step::rename, "link", std::strerror(link_errno), temp);
}

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content, const AtomicWriteOptions& options) {
  const fs::path target(path);
  if (!options.replace && exists_as_name(target)) throw AtomicWriteError(Step::exists, "exists", std::strerror(EEXIST), "");
  std::string temp;
  const int fd = create_temp(target, temp);
  if (fd < 0) throw AtomicWriteError(Step::create, "open", std::strerror(errno), temp);
  try {
    try {
      write_all(fd, content, temp);
      if (options.mode && ::fchmod(fd, static_cast<mode_t>(*options.mode)) != 0)
        throw AtomicWriteError(Step::write, "chmod", std::strerror(errno), temp);
      if (::fsync(fd) != 0) throw AtomicWriteError(Step::write, "fsync", std::strerror(errno), temp);
    } catch (...) {
      ::close(fd);
      throw;
    }
    if (::close(fd) != 0) throw AtomicWriteError(Step::write, "close", std::strerror(errno), temp);
    move_into_place(temp, path, options.replace);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
}

}  // namespace meshbench
