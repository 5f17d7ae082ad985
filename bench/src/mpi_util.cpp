#include "bench/mpi_util.hpp"

#include <iostream>

namespace meshbench::bench {

bool any_input_error(const std::string& error, MPI_Comm comm, const char* command) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = error.empty() ? size : rank;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return false;
  if (rank == first) std::cerr << "meshbench " << command << ": error: " << error << "\n" << std::flush;
  return true;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string mpi(text, static_cast<std::size_t>(len));
  if (const auto nl = mpi.find_first_of(",\n"); nl != std::string::npos) mpi.resize(nl);
  return mpi;
}

}  // namespace meshbench::bench
