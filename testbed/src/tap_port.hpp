#pragma once
// One emulated slot's network port: a TAP device named eth0 inside the slot's network
// namespace, its file held by the emulator. The device lives as long as the file: when the
// emulator exits, every port goes away with it and nothing is left on the machine.
#include <array>
#include <cstdint>
#include <string>

namespace meshbench::testbed {

class TapPort {
 public:
  // Creates eth0 in /var/run/netns/NETNS (non-blocking); throws std::runtime_error.
  explicit TapPort(const std::string& netns);
  ~TapPort();
  TapPort(TapPort&& other) noexcept;
  TapPort(const TapPort&) = delete;
  TapPort& operator=(const TapPort&) = delete;
  TapPort& operator=(TapPort&&) = delete;

  int fd() const { return fd_; }
  // The device's Ethernet address: a frame delivered here must carry it, or TCP drops it.
  const std::array<std::uint8_t, 6>& mac() const { return mac_; }

 private:
  int fd_ = -1;
  std::array<std::uint8_t, 6> mac_{};
};

}  // namespace meshbench::testbed
