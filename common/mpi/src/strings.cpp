#include "common/mpi/strings.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <utility>

#include "common/fnv.hpp"

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

DistinctStrings gather_distinct_strings(const std::string& mine, MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto size = static_cast<std::size_t>(size_of(comm));
  Fnv hash;
  hash.mix_bytes(mine);
  const std::array<std::uint64_t, 2> key{mine.size(), hash.value()};
  std::vector<std::uint64_t> keys(rank == 0 ? 2 * size : 0);
  MPI_Gather(key.data(), 2, MPI_UINT64_T, keys.data(), 2, MPI_UINT64_T, 0, comm);

  DistinctStrings out;
  std::vector<char> sends(size, 0);  // 1: this rank is the first holding its value
  std::vector<int> first_ranks;
  if (rank == 0) {
    std::map<std::pair<std::uint64_t, std::uint64_t>, int> index_of_key;
    out.value_of_rank.resize(size);
    for (std::size_t r = 0; r < size; ++r) {
      const auto [it, added] = index_of_key.try_emplace({keys[2 * r], keys[2 * r + 1]}, static_cast<int>(index_of_key.size()));
      if (added) sends[r] = 1;
      out.value_of_rank[r] = it->second;
    }
  }
  MPI_Bcast(sends.data(), static_cast<int>(size), MPI_CHAR, 0, comm);
  const bool sender = sends[static_cast<std::size_t>(rank)] != 0;
  auto gathered = gather_strings(sender ? mine : std::string(), comm);
  if (rank == 0) {
    for (std::size_t r = 0; r < size; ++r) {
      if (sends[r] != 0) out.values.push_back(std::move(gathered[r]));
    }
  }
  return out;
}

void broadcast_string(std::string& text, MPI_Comm comm, int root) {
  unsigned long long length = text.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, root, comm);
  text.resize(static_cast<std::size_t>(length));
  if (length > 0) MPI_Bcast(text.data(), static_cast<int>(length), MPI_CHAR, root, comm);
}

}  // namespace meshbench::mpi
