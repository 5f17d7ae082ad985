#include "write_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "common/error.hpp"

namespace meshbench::slurm {

namespace {

std::string errno_text() { return std::strerror(errno); }

}  // namespace

void write_file_atomically(const std::string& path, std::string_view content, unsigned mode, bool replace) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (!replace && fs::exists(fs::symlink_status(target))) {
    throw InputError(path + " exists; pass --force to replace it");
  }
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw InputError("cannot write " + path + ": " + errno_text() + "; check that its directory exists and is writable");
  const std::string tmp(name.data());
  auto fail = [&](const std::string& what) {
    const std::string why = errno_text();
    ::close(fd);
    ::unlink(tmp.c_str());
    throw InputError("cannot write " + path + " (" + what + ": " + why + ")");
  };
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write");
    }
    done += static_cast<std::size_t>(n);
  }
  if (::fchmod(fd, static_cast<mode_t>(mode)) != 0) fail("chmod");
  if (::fsync(fd) != 0) fail("fsync");
  if (::close(fd) != 0) {
    const std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw InputError("cannot write " + path + " (close: " + why + ")");
  }
  if (replace) {
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      const std::string why = errno_text();
      ::unlink(tmp.c_str());
      throw InputError("cannot write " + path + " (rename: " + why + ")");
    }
    return;
  }
  // link() fails when the name exists, so a file created meanwhile is never overwritten.
  if (::link(tmp.c_str(), path.c_str()) == 0) {
    ::unlink(tmp.c_str());
    return;
  }
  const int link_errno = errno;
  if (link_errno != EEXIST && (link_errno == EPERM || link_errno == ENOTSUP || link_errno == ENOSYS)) {
    // A filesystem without hard links: check again and rename (a narrow race, but no clobber
    // of a file that was there before we started).
    if (!fs::exists(fs::symlink_status(target)) && ::rename(tmp.c_str(), path.c_str()) == 0) return;
  }
  ::unlink(tmp.c_str());
  if (link_errno == EEXIST || fs::exists(fs::symlink_status(target))) throw InputError(path + " exists; pass --force to replace it");
  errno = link_errno;
  throw InputError("cannot write " + path + " (link: " + errno_text() + ")");
}

}  // namespace meshbench::slurm
