#pragma once
// The core-to-core probe: on every node (host, common/mpi/host_comm.hpp) where the first two
// ranks sit on different cores and MPI maps shared memory across the node's ranks, they pass a
// cache line back and forth through a shared-memory window and time the round trip.
// It uses only loads and stores, never the MPI or NCCL under test, so a library upgrade cannot
// move it and a host that moves the cores apart does (bench/sensors/machine_state.hpp says why).
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "bench/sensors/machine_state.hpp"

namespace meshbench::bench {

class CoreToCoreProbe {
 public:
  // Collective over `world`. With `policy.test_readings`, no window is made and read() returns
  // those readings in turn on every rank.
  CoreToCoreProbe(MPI_Comm world, const StatePolicy& policy);
  ~CoreToCoreProbe();
  CoreToCoreProbe(const CoreToCoreProbe&) = delete;
  CoreToCoreProbe& operator=(const CoreToCoreProbe&) = delete;

  // Some node has two ranks on disjoint cores (the same answer on every rank). Oversubscribed
  // ranks share cores: their round trip would time the scheduler, not the machine.
  bool usable() const { return usable_; }
  // Collective over the world: one reading of every probed node, against each node's best.
  StateReading read();

 private:
  double round_trip_ns();

  MPI_Comm world_ = MPI_COMM_NULL;
  MPI_Comm node_ = MPI_COMM_NULL;
  MPI_Comm pair_comm_ = MPI_COMM_NULL;  // local ranks 0 and 1 of a probed node
  MPI_Win window_ = MPI_WIN_NULL;
  std::uint32_t* line_ = nullptr;  // the shared cache line (local rank 0's)
  int local_rank_ = 0;
  bool pair_ = false;  // this node probes (its local ranks 0 and 1 have disjoint cores, its memory is shared)
  bool usable_ = false;
  NodeStateBest best_;
  std::vector<double> test_readings_;
  std::size_t next_test_reading_ = 0;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace meshbench::bench
