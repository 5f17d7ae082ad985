#pragma once
// MPI's lifetime for one subcommand: only the subcommands that need MPI start it.
#include <mpi.h>

namespace meshbench::mpi {

// Starts MPI unless it is running already, and finalises on destruction only what it started
// (and only when nobody finalised it meanwhile). A session nested inside another, or one made
// where a test's main started MPI, leaves MPI as it found it.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  // True when this session called MPI_Init (and so will call MPI_Finalize).
  bool started() const { return started_; }

 private:
  bool started_ = false;
};

}  // namespace meshbench::mpi
