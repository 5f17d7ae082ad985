#pragma once
// Private: the NTP-style ping-pong over MPI behind the clock.offset check.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/doctor/clock_offset.hpp"

namespace meshbench::analysis::detail {

// Collective over `comm`. `hosts[r]` is rank r's hostname. Rank 0 exchanges `samples` messages
// with the first rank of every other node (one at a time, so no exchange competes with another);
// on a single node it measures against rank 1 as a check of the method. `injected_ns` is added
// to this rank's clock readings (test only). The result is complete on rank 0.
ClockMeasurement measure_clock_offsets(MPI_Comm comm, const std::vector<std::string>& hosts, int samples, std::int64_t injected_ns);

}  // namespace meshbench::analysis::detail
