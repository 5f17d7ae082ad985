// cluster_probe: a tiny MPI program for the local test cluster's tests. Every rank reports its
// host; then rank 0 measures one-way bandwidth (osu_bw style: a window of non-blocking sends,
// one acknowledgement at the end) to a rank on another host ("cross") and to one on its own
// host ("intra"). Rank 0 prints machine-readable lines:
//   rank=R host=H local_rank=L node_ranks=K
//   bw kind=cross|intra from=0 to=R bytes=B seconds=S MBps=X trials=T   (MB = 10^6 bytes)
//   probe ok
// Each rate is the best of T trials (the machine is shared: the best is the least disturbed,
// and for the shaped link also the one most likely to exceed the shaping).
// Options: --cross-bytes N (default 32 MiB), --intra-bytes N (default 128 MiB),
//          --message N (default 1 MiB), --window N (default 16), --trials T (default 3).
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr int kHostLen = 256;

struct Options {
  long long cross_bytes = 32LL << 20;
  long long intra_bytes = 128LL << 20;
  int message = 1 << 20;
  int window = 16;
  int trials = 3;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    const long long value = std::atoll(argv[i + 1]);
    if (key == "--cross-bytes") o.cross_bytes = value;
    else if (key == "--intra-bytes") o.intra_bytes = value;
    else if (key == "--message") o.message = static_cast<int>(value);
    else if (key == "--window") o.window = static_cast<int>(value);
    else if (key == "--trials") o.trials = static_cast<int>(value);
  }
  o.message = std::max(o.message, 1);
  o.window = std::max(o.window, 1);
  o.trials = std::max(o.trials, 1);
  return o;
}

// A barrier that lets the ranks which are not measuring sleep: on this kind of machine every
// node's ranks share a few cores, and a rank spinning in MPI_Barrier would take CPU time from
// the two that are copying (shared memory copies are CPU-bound).
void barrier(bool busy) {
  MPI_Request req;
  MPI_Ibarrier(MPI_COMM_WORLD, &req);
  int done = 0;
  while (MPI_Test(&req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done == 0) {
    if (!busy) usleep(200);
  }
}

// Sends `total` bytes (rounded to whole windows) from `from` to `to`; returns seconds as timed
// by the sender, from the first send to the receiver's acknowledgement. Every rank calls it.
double one_way(int me, int from, int to, long long total, const Options& o, std::vector<char>& buf) {
  const long long per_window = static_cast<long long>(o.message) * o.window;
  const long long windows = std::max(1LL, total / per_window);
  const bool active = me == from || me == to;
  std::vector<MPI_Request> req(static_cast<std::size_t>(o.window));
  char ack = 0;
  double seconds = 0.0;
  // One window first: connection setup and page faults are not part of the rate.
  for (long long w = -1; w < windows; ++w) {
    if (w == 0) {
      barrier(active);
      seconds = MPI_Wtime();
    }
    if (!active) {
      if (w == 0) break;  // the others wait for the end below
      continue;
    }
    for (int i = 0; i < o.window; ++i) {
      char* p = buf.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(o.message);
      if (me == from) MPI_Isend(p, o.message, MPI_CHAR, to, 1, MPI_COMM_WORLD, &req[static_cast<std::size_t>(i)]);
      else MPI_Irecv(p, o.message, MPI_CHAR, from, 1, MPI_COMM_WORLD, &req[static_cast<std::size_t>(i)]);
    }
    MPI_Waitall(o.window, req.data(), MPI_STATUSES_IGNORE);
  }
  if (me == to) MPI_Send(&ack, 1, MPI_CHAR, from, 2, MPI_COMM_WORLD);
  if (me == from) {
    MPI_Recv(&ack, 1, MPI_CHAR, to, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    seconds = MPI_Wtime() - seconds;
  }
  barrier(false);
  return me == from ? seconds : 0.0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Options o = parse(argc, argv);

  char host[kHostLen] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  std::vector<char> hosts(static_cast<std::size_t>(size) * kHostLen);
  MPI_Allgather(host, kHostLen, MPI_CHAR, hosts.data(), kHostLen, MPI_CHAR, MPI_COMM_WORLD);
  auto host_of = [&](int r) { return std::string(&hosts[static_cast<std::size_t>(r) * kHostLen]); };

  // Peers of rank 0 by hostname: MPI's own locality would only repeat what the launcher says.
  int cross = -1;
  int intra = -1;
  for (int r = 1; r < size; ++r) {
    if (host_of(r) != host_of(0) && cross < 0) cross = r;
    if (host_of(r) == host_of(0) && intra < 0) intra = r;
  }

  if (me == 0) {
    for (int r = 0; r < size; ++r) {
      int local = 0;
      int on_node = 0;
      for (int q = 0; q < size; ++q) {
        if (host_of(q) == host_of(r)) {
          if (q < r) ++local;
          ++on_node;
        }
      }
      std::printf("rank=%d host=%s local_rank=%d node_ranks=%d\n", r, host_of(r).c_str(), local, on_node);
    }
    std::fflush(stdout);
  }

  std::vector<char> buf(static_cast<std::size_t>(o.message) * static_cast<std::size_t>(o.window), 'x');
  const long long per_window = static_cast<long long>(o.message) * o.window;
  struct Peer {
    const char* kind;
    int rank;
    long long bytes;
  };
  for (const Peer& p : {Peer{"cross", cross, o.cross_bytes}, Peer{"intra", intra, o.intra_bytes}}) {
    if (p.rank < 0) continue;  // every rank sees the same hosts, so all skip together
    double s = one_way(me, 0, p.rank, p.bytes, o, buf);
    for (int t = 1; t < o.trials; ++t) s = std::min(s, one_way(me, 0, p.rank, p.bytes, o, buf));
    if (me == 0) {
      const long long moved = std::max(1LL, p.bytes / per_window) * per_window;
      std::printf("bw kind=%s from=0 to=%d bytes=%lld seconds=%.6f MBps=%.3f trials=%d\n", p.kind, p.rank, moved, s,
                  static_cast<double>(moved) / s / 1e6, o.trials);
      std::fflush(stdout);
    }
  }
  if (me == 0) std::printf("probe ok\n");
  MPI_Finalize();
  return 0;
}
