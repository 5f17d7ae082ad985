#pragma once
#include <mpi.h>

#include "analysis/doctor/doctor.hpp"

namespace meshbench::analysis {

// Collective over `comm` (run calls it after MPI_Init): every rank reads its environment and the
// libraries it loads, the first rank of each node (by hostname) reads the node, rank 0 measures
// each other node's clock against its own and evaluates. Rank 0 gets the complete report (facts
// included, for the results file); every other rank gets the checks, the versions table and the
// clock outcome, so every rank knows the verdict. Never throws when a reading fails: a reader that
// fails is reported as such, and a failure while evaluating becomes a FAIL check.
DoctorFindings run_doctor(MPI_Comm comm, const DoctorOptions& options);

// One process without MPI: this process and this node; the clock check SKIPs.
DoctorFindings run_doctor_local(const DoctorOptions& options);

}  // namespace meshbench::analysis
