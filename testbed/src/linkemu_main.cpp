// meshbench-linkemu: the link-bound local cluster's network (docs/slurm.md, "Link-bound mode").
//
//   meshbench-linkemu CONFIG --ready FILE [--stats FILE]
//
// Creates eth0 (a TAP device) in every slot's network namespace of CONFIG (testbed/link_config.hpp),
// writes FILE once they exist, then moves every frame between them through the LinkNetwork:
// shaped rates, delays and shared queues, in user space because the kernel's netem is not
// available on every machine. SIGTERM, SIGINT or SIGHUP end it; the ports go with it.
// --stats gets each queue's packets, bytes and drops at exit (and on SIGUSR1).
#include <sched.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "tap_port.hpp"
#include "testbed/link_config.hpp"
#include "testbed/link_network.hpp"

namespace {

using meshbench::testbed::LinkConfig;
using meshbench::testbed::LinkNetwork;
using meshbench::testbed::TapPort;

constexpr std::size_t kEthernetHeader = 14;
constexpr std::size_t kMaxFrame = 65536;

double monotonic_s() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// A late wake-up delays every packet due meanwhile: run ahead of the ranks that spin while
// they wait (real-time priority where allowed, else the highest nice level).
std::string raise_priority() {
  sched_param param{};
  param.sched_priority = 10;
  if (::sched_setscheduler(0, SCHED_FIFO, &param) == 0) return "SCHED_FIFO 10";
  if (::setpriority(PRIO_PROCESS, 0, -20) == 0) return "nice -20";
  return "default priority";
}

void write_stats(const std::string& path, const LinkNetwork& network, std::uint64_t unroutable) {
  if (path.empty()) return;
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary);
    out << "# queue packets bytes dropped (meshbench-linkemu)\n";
    const auto& counters = network.counters();
    for (std::size_t q = 0; q < counters.size(); ++q) {
      out << network.queue_name(q) << ' ' << counters[q].packets << ' ' << counters[q].bytes << ' ' << counters[q].dropped << '\n';
    }
    out << "unroutable " << unroutable << " 0 0\n";
  }
  std::rename(temporary.c_str(), path.c_str());
}

int run(const std::string& config_path, const std::string& ready_path, const std::string& stats_path) {
  std::ifstream config_file(config_path);
  if (!config_file) {
    std::fprintf(stderr, "meshbench-linkemu: error: cannot read %s\n", config_path.c_str());
    return 2;
  }
  const LinkConfig config = meshbench::testbed::parse_link_config(config_file);
  LinkNetwork network(config.nodes, config.slots_per_node(), config.queue_bytes);

  sigset_t signals;
  sigemptyset(&signals);
  for (const int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&signals, s);
  sigprocmask(SIG_BLOCK, &signals, nullptr);
  const int signal_fd = ::signalfd(-1, &signals, SFD_CLOEXEC);
  const int timer_fd = ::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  const int poll_fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (signal_fd < 0 || timer_fd < 0 || poll_fd < 0)
    throw std::runtime_error(std::string("cannot set up the event loop: ") + std::strerror(errno));

  std::vector<TapPort> ports;
  std::unordered_map<std::uint32_t, int> slot_of_address;
  for (std::size_t s = 0; s < config.slots.size(); ++s) {
    ports.emplace_back(config.slots[s].netns);
    slot_of_address[config.slots[s].ipv4] = static_cast<int>(s);
  }
  const auto watch = [&](int fd, std::uint64_t tag) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.u64 = tag;
    if (::epoll_ctl(poll_fd, EPOLL_CTL_ADD, fd, &event) != 0) throw std::runtime_error(std::string("epoll_ctl: ") + std::strerror(errno));
  };
  for (std::size_t s = 0; s < ports.size(); ++s) watch(ports[s].fd(), s);
  const std::uint64_t kSignalTag = ports.size(), kTimerTag = ports.size() + 1;
  watch(signal_fd, kSignalTag);
  watch(timer_fd, kTimerTag);

  const std::string priority = raise_priority();
  {
    std::ofstream ready(ready_path);
    ready << "meshbench-linkemu " << ::getpid() << ' ' << ports.size() << " ports, " << priority << '\n';
    if (!ready) throw std::runtime_error("cannot write " + ready_path);
  }

  const double start_s = monotonic_s();
  std::unordered_map<std::uint64_t, std::vector<std::uint8_t>> in_flight;
  std::uint64_t next_packet = 0, unroutable = 0;
  std::vector<std::uint8_t> frame(kMaxFrame);
  std::vector<epoll_event> events(ports.size() + 2);
  for (;;) {
    const double next = network.next_event_s();
    itimerspec when{};
    if (std::isfinite(next)) {
      const double at = std::max(next + start_s, 1e-9);
      when.it_value.tv_sec = static_cast<time_t>(at);
      when.it_value.tv_nsec = static_cast<long>((at - std::floor(at)) * 1e9);
    }
    ::timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &when, nullptr);
    const int ready = ::epoll_wait(poll_fd, events.data(), static_cast<int>(events.size()), -1);
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("epoll_wait: ") + std::strerror(errno));
    for (int i = 0; i < ready; ++i) {
      const std::uint64_t tag = events[static_cast<std::size_t>(i)].data.u64;
      if (tag == kSignalTag) {
        signalfd_siginfo info{};
        if (::read(signal_fd, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) continue;
        write_stats(stats_path, network, unroutable);
        if (info.ssi_signo != SIGUSR1) return 0;
      } else if (tag == kTimerTag) {
        std::uint64_t expirations = 0;
        [[maybe_unused]] const ssize_t n = ::read(timer_fd, &expirations, sizeof expirations);
      } else {
        const int from = static_cast<int>(tag);
        for (;;) {
          const ssize_t n = ::read(ports[tag].fd(), frame.data(), frame.size());
          if (n <= 0) break;
          const auto length = static_cast<std::size_t>(n);
          // IPv4 only (the ports are NOARP and IPv6 is off): the destination address says the slot.
          if (length < kEthernetHeader + 20 || frame[12] != 0x08 || frame[13] != 0x00) continue;
          const std::uint32_t destination = (std::uint32_t{frame[30]} << 24) | (std::uint32_t{frame[31]} << 16) |
                                            (std::uint32_t{frame[32]} << 8) | std::uint32_t{frame[33]};
          const auto slot = slot_of_address.find(destination);
          if (slot == slot_of_address.end() || slot->second == from) {
            ++unroutable;
            continue;
          }
          const std::uint64_t id = next_packet++;
          if (network.send(id, from, slot->second, length, monotonic_s() - start_s))
            in_flight.emplace(id, std::vector<std::uint8_t>(frame.begin(), frame.begin() + n));
        }
      }
    }
    for (const auto& delivery : network.advance(monotonic_s() - start_s)) {
      auto packet = in_flight.find(delivery.packet);
      if (packet == in_flight.end()) continue;
      const TapPort& port = ports[static_cast<std::size_t>(delivery.to_slot)];
      // The receiving device's own address, or its TCP would take the frame for someone else's.
      std::memcpy(packet->second.data(), port.mac().data(), port.mac().size());
      [[maybe_unused]] const ssize_t n = ::write(port.fd(), packet->second.data(), packet->second.size());
      in_flight.erase(packet);
    }
    for (const std::uint64_t id : network.take_dropped()) in_flight.erase(id);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string config, ready, stats;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--ready" || arg == "--stats") && i + 1 < argc) {
      (arg == "--ready" ? ready : stats) = argv[++i];
    } else if (config.empty() && !arg.starts_with("-")) {
      config = arg;
    } else {
      std::fprintf(stderr,
                   "meshbench-linkemu: error: unexpected argument '%s'; usage: meshbench-linkemu CONFIG --ready FILE [--stats FILE]\n",
                   argv[i]);
      return 2;
    }
  }
  if (config.empty() || ready.empty()) {
    std::fprintf(stderr, "meshbench-linkemu: error: usage: meshbench-linkemu CONFIG --ready FILE [--stats FILE]\n");
    return 2;
  }
  try {
    return run(config, ready, stats);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "meshbench-linkemu: error: %s: %s\n", config.c_str(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "meshbench-linkemu: error: %s\n", e.what());
    return 1;
  }
}
