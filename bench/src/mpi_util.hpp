#pragma once
// Small MPI conveniences for the run driver (not the timed paths).
#include <mpi.h>

#include <string>
#include <vector>

namespace meshbench::bench {

// Owns MPI's lifetime for a subcommand: only the subcommands that need MPI start it.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

void broadcast(std::string& text, int root, MPI_Comm comm);
std::vector<std::string> allgather(const std::string& mine, MPI_Comm comm);

// Input errors found on any rank end every rank with status 2; the lowest rank that found one
// prints it, once. Returns true when some rank had an error.
bool any_input_error(const std::string& error, MPI_Comm comm, const char* command);

}  // namespace meshbench::bench
