#include "bench/mpi_wait.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace meshbench::bench {

namespace {

constexpr long kMaxSleepUs = 100000;

// The setting's µs, or -1 where the variable holds something else.
long read_sleep_us() {
  const char* text = std::getenv("MESHBENCH_MPI_WAIT_SLEEP_US");
  if (text == nullptr || *text == '\0') return 0;
  char* end = nullptr;
  const long us = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || us < 0 || us > kMaxSleepUs) return -1;
  return us;
}

void sleep_between_tests() { std::this_thread::sleep_for(std::chrono::microseconds(mpi_wait_sleep_us())); }

}  // namespace

std::string mpi_wait_setting_error() {
  if (read_sleep_us() >= 0) return "";
  return "MESHBENCH_MPI_WAIT_SLEEP_US='" + std::string(std::getenv("MESHBENCH_MPI_WAIT_SLEEP_US")) +
         "' is not a whole number of microseconds from 0 to " + std::to_string(kMaxSleepUs) +
         "; set one (the link-bound local cluster uses 50) or unset it to spin";
}

int mpi_wait_sleep_us() {
  // A run refuses a bad setting before it measures (settle_topology); here it spins.
  static const int us = static_cast<int>(std::max(0L, read_sleep_us()));
  return us;
}

void mpi_wait(MPI_Request& request) {
  if (mpi_wait_sleep_us() == 0) {
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    return;
  }
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) return;
    sleep_between_tests();
  }
}

void mpi_wait_all(int count, MPI_Request* requests) {
  if (mpi_wait_sleep_us() == 0) {
    MPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
    return;
  }
  for (int done = 0;;) {
    MPI_Testall(count, requests, &done, MPI_STATUSES_IGNORE);
    if (done != 0) return;
    sleep_between_tests();
  }
}

void mpi_barrier(MPI_Comm comm) {
  if (mpi_wait_sleep_us() == 0) {
    MPI_Barrier(comm);
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  mpi_wait(request);
}

void mpi_allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  if (mpi_wait_sleep_us() == 0) {
    MPI_Allreduce(send, recv, count, type, op, comm);
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Iallreduce(send, recv, count, type, op, comm, &request);
  mpi_wait(request);
}

}  // namespace meshbench::bench
