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
// Rank 0's view of strings most members share (every rank's facts at 65,536 ranks): each
// distinct string once, and which of them each rank holds. Only the first rank holding a
// value sends it, so rank 0 receives 20 bytes per rank (a key and a length) plus the distinct values, not every
// copy. Strings are told apart by length and a 64-bit FNV-1a hash: two different strings of one
// length with the same hash would be taken for one (about 1 in 10^10 for 65,536 distinct values).
struct DistinctStrings {
  std::vector<std::string> values;  // in order of the first rank holding each
  std::vector<int> value_of_rank;   // index into values, one per rank
};
// Collective; the result is filled on rank 0 only.
DistinctStrings gather_distinct_strings(const std::string& mine, MPI_Comm comm);

// `text` of `root` replaces `text` on every other member.
void broadcast_string(std::string& text, MPI_Comm comm, int root = 0);

}  // namespace meshbench::mpi
