#pragma once
// Small MPI conveniences for the run driver (not the timed paths); the session and the string
// collectives are common/mpi's.
#include <mpi.h>

#include <string>

namespace meshbench::bench {

// Input errors found on any rank end every rank with status 2; the lowest rank that found one
// prints it, once. Returns true when some rank had an error.
bool any_input_error(const std::string& error, MPI_Comm comm, const char* command);

// MPI_Get_library_version's first line, up to its first comma ("Open MPI v4.1.4"): what a
// results file records as the "mpi" version.
std::string mpi_library_version();

}  // namespace meshbench::bench
