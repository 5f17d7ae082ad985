// The reference for meshbench's fidelity check: the plainest MPI timing loop there is
// (barrier, time one op, keep the slowest rank per iteration, take the median), written
// independently of meshbench's driver. Usage: mpirun -np 2 perf_plain_mpi_loop OP MIN MAX ITERS
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc != 5) {
    if (rank == 0) std::fprintf(stderr, "usage: perf_plain_mpi_loop all_reduce|all_to_all|send_recv MIN_BYTES MAX_BYTES ITERS\n");
    MPI_Finalize();
    return 2;
  }
  const char* op = argv[1];
  const long min_bytes = std::atol(argv[2]), max_bytes = std::atol(argv[3]);
  const int iters = std::atoi(argv[4]);
  for (long bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    const int count = static_cast<int>(bytes / 4);
    const int per_peer = count / size;
    std::vector<float> send(static_cast<std::size_t>(count) + 1, 1.0F), recv(static_cast<std::size_t>(count) * 2 + 1);
    auto once = [&] {
      if (std::strcmp(op, "all_reduce") == 0) {
        MPI_Allreduce(send.data(), recv.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      } else if (std::strcmp(op, "all_to_all") == 0) {
        MPI_Alltoall(send.data(), per_peer, MPI_FLOAT, recv.data(), per_peer, MPI_FLOAT, MPI_COMM_WORLD);
      } else {
        const int peer = 1 - rank;  // two ranks exchange both ways at once
        MPI_Request req[2];
        MPI_Irecv(recv.data(), count, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(send.data(), count, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
      }
    };
    for (int i = 0; i < 5; ++i) once();
    std::vector<double> t(static_cast<std::size_t>(iters));
    for (int i = 0; i < iters; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto t0 = std::chrono::steady_clock::now();
      once();
      t[static_cast<std::size_t>(i)] = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    MPI_Allreduce(MPI_IN_PLACE, t.data(), iters, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    std::sort(t.begin(), t.end());
    const double median = iters % 2 == 1 ? t[static_cast<std::size_t>(iters / 2)] : 0.5 * (t[static_cast<std::size_t>(iters / 2 - 1)] + t[static_cast<std::size_t>(iters / 2)]);
    if (rank == 0) std::printf("%s %ld %.3f\n", op, bytes, median);
  }
  MPI_Finalize();
  return 0;
}
