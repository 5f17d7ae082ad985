#pragma once
// How a rank waits for MPI: spinning in MPI's own wait (the default, as every MPI benchmark
// does), or, where MESHBENCH_MPI_WAIT_SLEEP_US is set, testing the request and sleeping that
// many µs between tests. Ranks that outnumber the cores spin each other off them: on the
// link-bound local cluster, 8 spinning ranks on 2 cores made a point inside a node take up to
// 1.8x its time alone; sleeping ranks leave the cores to the ones whose data has arrived
// (docs/slurm.md, "Link-bound mode"). The cost is at most one sleep per step of the algorithm.
#include <mpi.h>

#include <string>

namespace meshbench::bench {

// The sleep between tests in µs from MESHBENCH_MPI_WAIT_SLEEP_US, read once; 0 spins.
int mpi_wait_sleep_us();
// Why MESHBENCH_MPI_WAIT_SLEEP_US cannot be used (not a whole number from 0 to 100000), in one
// line with the way out; empty when it is unset or usable.
std::string mpi_wait_setting_error();

// Completes the request(s) as the setting says.
void mpi_wait(MPI_Request& request);
void mpi_wait_all(int count, MPI_Request* requests);

// The synchronisation and reductions of the timing loop, waiting as the setting says.
void mpi_barrier(MPI_Comm comm);
void mpi_allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

}  // namespace meshbench::bench
