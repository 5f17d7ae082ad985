#include "common/mpi/strings.hpp"

#include <cstddef>
#include <numeric>

namespace meshbench::mpi {

namespace {

std::vector<int> displacements(const std::vector<int>& lengths) {
  std::vector<int> d(lengths.size(), 0);
  std::exclusive_scan(lengths.begin(), lengths.end(), d.begin(), 0);
  return d;
}

std::vector<std::string> split_by_lengths(const std::string& all, const std::vector<int>& lengths) {
  std::vector<std::string> out;
  out.reserve(lengths.size());
  std::size_t pos = 0;
  for (int len : lengths) {
    out.push_back(all.substr(pos, static_cast<std::size_t>(len)));
    pos += static_cast<std::size_t>(len);
  }
  return out;
}

int size_of(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

}  // namespace

std::vector<std::string> gather_strings(const std::string& mine, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int len = static_cast<int>(mine.size());
  // Only rank 0 receives, so only rank 0 holds one length per rank (65,536 of them at scale).
  std::vector<int> lengths(rank == 0 ? static_cast<std::size_t>(size_of(comm)) : 0);
  MPI_Gather(&len, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  const auto displs = displacements(lengths);
  std::string all(rank == 0 ? static_cast<std::size_t>(std::accumulate(lengths.begin(), lengths.end(), 0)) : 0, '\0');
  MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, 0, comm);
  return rank == 0 ? split_by_lengths(all, lengths) : std::vector<std::string>{};
}

std::vector<std::string> allgather_strings(const std::string& mine, MPI_Comm comm) {
  int len = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_of(comm)));
  MPI_Allgather(&len, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  const auto displs = displacements(lengths);
  std::string all(static_cast<std::size_t>(std::accumulate(lengths.begin(), lengths.end(), 0)), '\0');
  MPI_Allgatherv(mine.data(), len, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, comm);
  return split_by_lengths(all, lengths);
}

void broadcast_string(std::string& text, MPI_Comm comm, int root) {
  unsigned long long length = text.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm);
  text.resize(static_cast<std::size_t>(length));
  if (length > 0) MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root, comm);
}

}  // namespace meshbench::mpi
