#pragma once
// Strings of any length through MPI collectives, for the non-timed paths (setup, plans, facts).
// Every call is collective over `comm`: all its members must make it.
#include <mpi.h>

#include <string>
#include <vector>

namespace meshbench::mpi {

// Every member's string on rank 0 of `comm`, in rank order; an empty vector on the others.
std::vector<std::string> gather_strings(const std::string& mine, MPI_Comm comm);
// Every member's string on every member, in rank order.
std::vector<std::string> allgather_strings(const std::string& mine, MPI_Comm comm);
// `text` of `root` replaces `text` on every other member.
void broadcast_string(std::string& text, MPI_Comm comm, int root = 0);

}  // namespace meshbench::mpi
