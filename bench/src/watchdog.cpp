#include "bench/watchdog.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <span>
#include <sstream>

#include "common/error.hpp"
#include "common/mpi/strings.hpp"
#include "common/strings.hpp"

namespace meshbench::bench {

namespace {

std::atomic<int> g_wake_fd{-1};
std::atomic<int> g_signal{0};

extern "C" void on_terminate_signal(int sig) {
  g_signal.store(sig);
  const int fd = g_wake_fd.load();
  if (fd >= 0) {
    const char c = 1;
    [[maybe_unused]] const auto n = ::write(fd, &c, 1);
  }
}

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<std::string> local_ipv4_addresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    char buf[INET_ADDRSTRLEN] = {};
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    ::inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
    if (std::string(buf) != "127.0.0.1") out.emplace_back(buf);
  }
  ::freeifaddrs(list);
  return out;
}

// One side-channel request to many ranks at once: connect (trying each advertised address in
// rounds), send `request`, and collect one reply line from each.
struct Peer {
  int rank = 0;
  std::vector<std::string> addresses;
  int port = 0;
  int fd = -1;
  std::size_t next_address = 0;
  bool connected = false;
  bool refused = false;  // some address refused the connection: nothing listens there any more
  bool sent = false;
  bool done = false;
  std::string reply;
};

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

bool start_connect(Peer& p) {
  while (p.next_address < p.addresses.size()) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(p.port));
    const std::string ip = p.addresses[p.next_address++];
    if (::inet_pton(AF_INET, ip.c_str(), &addr.sin_addr) != 1) continue;
    p.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (p.fd < 0) return false;
    set_nonblocking(p.fd);
    const int rc = ::connect(p.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
    if (rc == 0 || errno == EINPROGRESS) return true;
    if (errno == ECONNREFUSED) p.refused = true;
    ::close(p.fd);
    p.fd = -1;
  }
  return false;
}

void exchange_window(std::span<Peer> peers, const std::string& request, double round_timeout_s, bool want_reply) {
  for (int round = 0; round < 4; ++round) {
    std::vector<Peer*> active;
    for (auto& p : peers) {
      if (p.done || p.connected) continue;
      if (start_connect(p)) active.push_back(&p);
    }
    const auto deadline = now_ns() + static_cast<std::int64_t>(round_timeout_s * 1e9);
    while (!active.empty() && now_ns() < deadline) {
      std::vector<pollfd> fds;
      for (auto* p : active) fds.push_back({p->fd, static_cast<short>(p->connected && p->sent ? POLLIN : POLLOUT), 0});
      const int wait_ms = static_cast<int>(std::max<std::int64_t>(1, (deadline - now_ns()) / 1000000));
      if (::poll(fds.data(), fds.size(), std::min(wait_ms, 100)) < 0 && errno != EINTR) break;
      for (std::size_t i = 0; i < fds.size(); ++i) {
        Peer& p = *active[i];
        if (fds[i].revents == 0) continue;
        if (!p.connected) {
          int err = 0;
          socklen_t len = sizeof err;
          ::getsockopt(p.fd, SOL_SOCKET, SO_ERROR, &err, &len);
          if (err != 0) {  // refused or unreachable: try the next address next round
            if (err == ECONNREFUSED) p.refused = true;
            ::close(p.fd);
            p.fd = -1;
            continue;
          }
          p.connected = true;
        }
        if (!p.sent) {
          [[maybe_unused]] const auto n = ::send(p.fd, request.data(), request.size(), MSG_NOSIGNAL);
          p.sent = true;
          if (!want_reply) p.done = true;
          continue;
        }
        char buf[1024];
        const auto n = ::recv(p.fd, buf, sizeof buf, 0);
        if (n > 0) p.reply.append(buf, static_cast<std::size_t>(n));
        if (n <= 0 || p.reply.find('\n') != std::string::npos) p.done = true;
      }
      active.erase(std::remove_if(active.begin(), active.end(), [](Peer* p) { return p->done || p->fd < 0; }), active.end());
    }
  }
  for (auto& p : peers) {
    if (p.fd >= 0) ::close(p.fd);
    p.fd = -1;
  }
}

// A window of peers at a time: one socket per peer, and a process may hold only so many (the
// usual soft limit is 1024 descriptors; 65,536 ranks would exhaust it and read as silent).
void exchange(std::vector<Peer>& peers, const std::string& request, double round_timeout_s, bool want_reply) {
  constexpr std::size_t kWindow = 256;
  for (std::size_t first = 0; first < peers.size(); first += kWindow) {
    exchange_window(std::span<Peer>(peers).subspan(first, std::min(kWindow, peers.size() - first)), request, round_timeout_s, want_reply);
  }
}

// Every rank but 0, with the addresses it advertised. Loopback comes first for ranks on rank 0's
// host: it works even where interfaces are filtered.
std::vector<Peer> side_channel_peers(const std::vector<std::string>& endpoints, const std::vector<std::string>& hosts) {
  std::vector<Peer> peers;
  for (std::size_t r = 1; r < endpoints.size(); ++r) {
    Peer p;
    p.rank = static_cast<int>(r);
    std::istringstream in(endpoints[r]);
    std::string list;
    in >> p.port >> list;
    if (hosts.size() == endpoints.size() && hosts[r] == hosts[0]) p.addresses.emplace_back("127.0.0.1");
    std::stringstream ips(list);
    for (std::string ip; std::getline(ips, ip, ',');) {
      if (!ip.empty()) p.addresses.push_back(ip);
    }
    peers.push_back(std::move(p));
  }
  return peers;
}

}  // namespace

double default_op_limit_s(double base_s, std::uint64_t bytes) { return base_s + static_cast<double>(bytes) / 50e6; }

double communicator_init_limit_s(double base_s, int group_size) { return base_s + 0.1 * std::max(group_size, 1); }

Watchdog::Watchdog(MPI_Comm world, std::vector<std::string> hosts, double grace_s, FailureHandler on_failure)
    : hosts_(std::move(hosts)), grace_s_(grace_s), on_failure_(std::move(on_failure)) {
  MPI_Comm_rank(world, &rank_);
  MPI_Comm_size(world, &size_);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  int port = 0;
  if (listen_fd_ >= 0 && ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(listen_fd_, 128) == 0) {
    socklen_t len = sizeof addr;
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
  }
  std::string endpoint = std::to_string(port) + " ";
  for (const auto& ip : local_ipv4_addresses()) endpoint += ip + ",";
  // Each rank's own length: rank 0 holds every rank's endpoint for the run, about 30 bytes each
  // rather than a fixed-width slot (512 bytes x 65,536 ranks would be 32 MiB).
  endpoints_ = mpi::gather_strings(endpoint, world);

  if (::pipe2(wake_pipe_, O_CLOEXEC | O_NONBLOCK) == 0) {
    g_wake_fd.store(wake_pipe_[1]);
    struct sigaction sa {};
    sa.sa_handler = on_terminate_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  }
  thread_ = std::thread([this] { serve(); });
}

Watchdog::~Watchdog() {
  stop_.store(true);
  if (wake_pipe_[1] >= 0) {
    const char c = 0;
    [[maybe_unused]] const auto n = ::write(wake_pipe_[1], &c, 1);
  }
  if (thread_.joinable()) thread_.join();
  g_wake_fd.store(-1);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) std::signal(sig, SIG_DFL);
  for (int fd : {listen_fd_, wake_pipe_[0], wake_pipe_[1]}) {
    if (fd >= 0) ::close(fd);
  }
}

void Watchdog::set_point(const std::string& description) {
  const std::lock_guard lock(point_mutex_);
  point_ = description;
}

std::string Watchdog::point() const {
  const std::lock_guard lock(point_mutex_);
  return point_;
}

void Watchdog::arm(double limit_s) {
  const auto limit = static_cast<std::int64_t>(limit_s * 1e9);
  limit_ns_.store(limit, std::memory_order_relaxed);
  deadline_ns_.store(now_ns() + limit, std::memory_order_relaxed);
}

void Watchdog::disarm() { deadline_ns_.store(0, std::memory_order_relaxed); }

std::string Watchdog::status_line() const {
  const std::lock_guard lock(point_mutex_);
  return std::to_string(rank_) + " " + (deadline_ns_.load() != 0 ? "1" : "0") + " " + point_ + "\n";
}

void Watchdog::serve() {
  std::int64_t gave_up_at = 0;
  while (!stop_.load()) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    ::poll(fds, 2, 200);
    if ((fds[1].revents & POLLIN) != 0) {
      char buf[64];
      while (::read(wake_pipe_[0], buf, sizeof buf) > 0) {
      }
      if (const int sig = g_signal.load(); sig != 0) {
        std::string point;
        {
          const std::lock_guard lock(point_mutex_);
          point = point_;
        }
        exit_run("interrupted by signal " + std::to_string(sig) + (point.empty() ? "" : " during " + point) +
                     "; the results file keeps every completed point (continue it with --resume)",
                 true);
      }
    }
    if ((fds[0].revents & POLLIN) != 0) {
      const int c = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0) {
        pollfd in{c, POLLIN, 0};
        std::string line;
        while (line.find('\n') == std::string::npos && ::poll(&in, 1, 1000) > 0) {
          char buf[1024];
          const auto n = ::recv(c, buf, sizeof buf, 0);
          if (n <= 0) break;
          line.append(buf, static_cast<std::size_t>(n));
        }
        if (line.rfind("STATUS", 0) == 0) {
          const auto reply = status_line();
          [[maybe_unused]] const auto n = ::send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
        } else if (line.rfind("ABORT ", 0) == 0) {
          const auto msg = line.substr(6, line.find('\n') - 6);
          std::fprintf(stderr, "meshbench run: rank %d (%s): stopping: %s\n", rank_,
                       hosts_.empty() ? "" : hosts_[static_cast<std::size_t>(rank_)].c_str(), msg.c_str());
          std::fflush(stderr);
          ::_exit(kExitRunFault);
        }
        ::close(c);
      }
    }
    const std::int64_t deadline = deadline_ns_.load();
    if (deadline != 0 && now_ns() > deadline) {
      if (rank_ == 0) fire();
      // Other ranks keep answering rank 0 for a grace period, then give up on their own.
      if (gave_up_at == 0) gave_up_at = now_ns() + static_cast<std::int64_t>(grace_s_ * 1e9);
    }
    if (gave_up_at != 0 && now_ns() > gave_up_at) {
      std::string point;
      {
        const std::lock_guard lock(point_mutex_);
        point = point_;
      }
      exit_run(point + " did not finish within " + std::to_string(static_cast<int>(limit_ns_.load() / 1000000000)) +
                   " s and rank 0 did not end the run",
               false);
    }
  }
}

std::vector<Watchdog::PeerStatus> Watchdog::query_all(double timeout_s) {
  auto peers = side_channel_peers(endpoints_, hosts_);
  exchange(peers, "STATUS\n", timeout_s, true);
  std::vector<PeerStatus> out;
  {
    const std::lock_guard lock(point_mutex_);
    out.push_back({0, Reach::answered, true, point_});
  }
  for (const auto& p : peers) {
    PeerStatus s;
    s.rank = p.rank;
    s.reach = p.reply.find('\n') != std::string::npos ? Reach::answered
              : p.connected                           ? Reach::silent
              : p.refused                             ? Reach::refused
                                                      : Reach::unreachable;
    if (s.reach == Reach::answered) {
      std::istringstream in(p.reply);
      int rank = 0, armed = 0;
      in >> rank >> armed;
      s.armed = armed != 0;
      std::getline(in >> std::ws, s.point);
    }
    out.push_back(s);
  }
  return out;
}

std::string Watchdog::describe_failure(const std::string& point, double limit_s, const std::vector<PeerStatus>& peers,
                                       const std::vector<std::string>& hosts) {
  std::ostringstream msg;
  msg << "watchdog: " << point << " did not finish within " << static_cast<long long>(limit_s) << " s";
  std::vector<std::string> missing, unreachable;
  int waiting = 0;
  for (const auto& p : peers) {
    const std::string host = static_cast<std::size_t>(p.rank) < hosts.size() ? hosts[static_cast<std::size_t>(p.rank)] : "?";
    const std::string who = "rank " + std::to_string(p.rank) + " on " + host;
    if (p.reach == Reach::refused) {
      missing.push_back(who + " (gone: its side channel refuses connections; killed or exited)");
    } else if (p.reach == Reach::silent) {
      missing.push_back(who + " (no answer: stopped or frozen)");
    } else if (p.reach == Reach::unreachable) {
      unreachable.push_back(who);
    } else if (!p.armed || p.point != point) {
      missing.push_back(who + " (not inside this op" + (p.point.empty() ? "" : "; at " + p.point) + ")");
    } else {
      ++waiting;
    }
  }
  const auto list = [&msg](const std::vector<std::string>& items) { msg << join(items, ", "); };
  if (missing.empty() && unreachable.empty()) msg << "; every rank is inside it (a hang in the library or the network)";
  if (!missing.empty()) {
    msg << "; never arrived: ";
    list(missing);
  }
  if (!unreachable.empty()) {
    msg << "; unreachable (no connection to their side channel: their node or its link is down): ";
    list(unreachable);
  }
  msg << "; " << waiting << " rank(s) waiting inside it";
  return msg.str();
}

void Watchdog::abort_all(const std::string& message) {
  auto peers = side_channel_peers(endpoints_, hosts_);
  exchange(peers, "ABORT " + message + "\n", 0.5, false);
}

void Watchdog::end_run(const std::string& message) { exit_run(message, false); }

void Watchdog::fire() {
  std::string point;
  {
    const std::lock_guard lock(point_mutex_);
    point = point_;
  }
  const auto peers = query_all(1.0);
  exit_run(describe_failure(point, static_cast<double>(limit_ns_.load()) / 1e9, peers, hosts_), false);
}

void Watchdog::exit_run(const std::string& message, bool interrupted) {
  std::fprintf(stderr, "meshbench run: rank %d: %s\n", rank_, message.c_str());
  std::fflush(stderr);
  if (rank_ == 0) {
    try {
      if (on_failure_) on_failure_(message, interrupted);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "meshbench run: could not record the failure in the results file: %s\n", e.what());
    }
    if (size_ > 1 && !endpoints_.empty() && !interrupted) abort_all(message);
  }
  ::_exit(kExitRunFault);
}

}  // namespace meshbench::bench
