#include "tap_port.hpp"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace meshbench::testbed {

namespace {

std::runtime_error failure(const std::string& what) { return std::runtime_error(what + ": " + std::strerror(errno)); }

// Enters a network namespace for the life of the object, then returns to the one it came from.
class InNamespace {
 public:
  explicit InNamespace(const std::string& netns) {
    home_ = ::open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
    if (home_ < 0) throw failure("cannot open this process's network namespace");
    const std::string path = "/var/run/netns/" + netns;
    const int target = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (target < 0 || ::setns(target, CLONE_NEWNET) != 0) {
      const std::runtime_error error = failure("cannot enter network namespace " + path);
      if (target >= 0) ::close(target);
      ::close(home_);
      throw error;
    }
    ::close(target);
  }
  ~InNamespace() {
    if (::setns(home_, CLONE_NEWNET) != 0) std::abort();  // a port opened in the wrong namespace would be worse
    ::close(home_);
  }
  InNamespace(const InNamespace&) = delete;
  InNamespace& operator=(const InNamespace&) = delete;

 private:
  int home_ = -1;
};

}  // namespace

TapPort::TapPort(const std::string& netns) {
  const InNamespace inside(netns);
  fd_ = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw failure("cannot open /dev/net/tun");
  ifreq request{};
  request.ifr_flags = IFF_TAP | IFF_NO_PI;
  std::strncpy(request.ifr_name, "eth0", IFNAMSIZ - 1);
  if (::ioctl(fd_, TUNSETIFF, &request) != 0) {
    const std::runtime_error error = failure("cannot create eth0 in " + netns);
    ::close(fd_);
    throw error;
  }
  const int probe = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq address{};
  std::strncpy(address.ifr_name, "eth0", IFNAMSIZ - 1);
  if (probe < 0 || ::ioctl(probe, SIOCGIFHWADDR, &address) != 0) {
    const std::runtime_error error = failure("cannot read eth0's address in " + netns);
    if (probe >= 0) ::close(probe);
    ::close(fd_);
    throw error;
  }
  ::close(probe);
  std::memcpy(mac_.data(), address.ifr_hwaddr.sa_data, mac_.size());
}

TapPort::TapPort(TapPort&& other) noexcept : fd_(other.fd_), mac_(other.mac_) { other.fd_ = -1; }

TapPort::~TapPort() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace meshbench::testbed
