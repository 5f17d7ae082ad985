#pragma once
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace meshbench::bench {

// Default limit for one op: a generous floor plus the time the size takes at 50 MB/s, the
// slowest path a benchmark rank is expected to meet.
double default_op_limit_s(double base_s, std::uint64_t bytes);

// Limit for creating one dimension's communicators (all groups at once): the floor plus 0.1 s
// per member of a group — bootstrap, and NCCL_DEBUG=INFO's output, grow with the group; 60 s
// alone is short at 1,000+ ranks.
double communicator_init_limit_s(double base_s, int group_size);

// Ends a hung run cleanly. Every rank runs a small thread with a TCP side channel of its own
// (not MPI: the main thread may be blocked inside MPI, and MPI_THREAD_MULTIPLE would slow every
// small op). When an op outlives its limit, rank 0 asks every rank where it is; ranks that do
// not answer (killed, stopped) or are not inside the op never arrived. Rank 0 names them with
// their hosts and the point, records the failure, tells the others to stop, and every rank
// exits with status 3. A rank whose rank 0 is gone gives up on its own after a grace period.
class Watchdog {
 public:
  // `interrupted`: the launcher is ending the job (a signal) and will kill this process about a
  // second later, too soon to write safely; the handler should only wait until no write is in
  // flight. Otherwise (a hang rank 0 detected itself) it records the failure.
  using FailureHandler = std::function<void(const std::string& message, bool interrupted)>;

  // Collective over `world`. `hosts` holds each world rank's hostname (for the message).
  // `on_failure` runs on rank 0 before the run ends (record the failure in the results file).
  Watchdog(MPI_Comm world, std::vector<std::string> hosts, double grace_s, FailureHandler on_failure);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // What is in flight, for the message: set outside any timed region.
  void set_point(const std::string& description);
  std::string point() const;
  // Rank 0 only: ends the run for every rank now, as a hang would (the failure handler records
  // `message`, the other ranks are told to stop, every rank exits with status 3). For failures
  // rank 0 meets outside MPI, e.g. a results filesystem that is full.
  [[noreturn]] void end_run(const std::string& message);
  // Before the synchronisation and op, after them: two atomic stores.
  void arm(double limit_s);
  void disarm();

  // How a rank's side channel behaved when rank 0 asked where it was. A killed process's port
  // refuses the connection; a stopped one's kernel still accepts it but nobody answers; a rank
  // behind a link that is down cannot be reached at all. Each calls for a different fix.
  enum class Reach { answered, silent, refused, unreachable };
  // Test-only: the message rank 0 composed, for unit tests of the classification.
  struct PeerStatus {
    int rank = 0;
    Reach reach = Reach::unreachable;
    bool armed = false;
    std::string point;
  };
  static std::string describe_failure(const std::string& point, double limit_s, const std::vector<PeerStatus>& peers,
                                      const std::vector<std::string>& hosts);

 private:
  void serve();
  void fire();
  std::string status_line() const;
  std::vector<PeerStatus> query_all(double timeout_s);
  void abort_all(const std::string& message);
  [[noreturn]] void exit_run(const std::string& message, bool interrupted);

  int rank_ = 0;
  int size_ = 1;
  std::vector<std::string> hosts_;
  std::vector<std::string> endpoints_;  // rank 0: "port ip1,ip2,..." per rank
  double grace_s_;
  FailureHandler on_failure_;
  int listen_fd_ = -1;
  int wake_pipe_[2] = {-1, -1};
  std::atomic<std::int64_t> deadline_ns_{0};  // 0: not inside an op
  std::atomic<std::int64_t> limit_ns_{0};
  std::atomic<bool> stop_{false};
  mutable std::mutex point_mutex_;
  std::string point_;
  std::thread thread_;
};

// Armed for the lifetime of the scope (no-op without a watchdog). Every collective of a run
// goes through one: a rank stopped while the others sat in an unwatched reduction once left
// rank 0 waiting there for ever, and only the other ranks' grace period ended the run, without
// naming the rank that never arrived.
class WatchedScope {
 public:
  WatchedScope(Watchdog* watchdog, double limit_s) : watchdog_(watchdog) {
    if (watchdog_ != nullptr) watchdog_->arm(limit_s);
  }
  ~WatchedScope() {
    if (watchdog_ != nullptr) watchdog_->disarm();
  }
  WatchedScope(const WatchedScope&) = delete;
  WatchedScope& operator=(const WatchedScope&) = delete;

 private:
  Watchdog* watchdog_;
};

}  // namespace meshbench::bench
