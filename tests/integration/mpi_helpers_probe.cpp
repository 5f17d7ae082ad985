// common/mpi under mpirun: the string collectives on every rank count and root, the split into
// the ranks of one host, and the session that starts MPI only when it is not running and
// finalises only what it started. Prints one line per failed expectation and exits 1 when there
// was one.
#include <mpi.h>

#include <iostream>
#include <string>
#include <vector>

#include "common/mpi/host_comm.hpp"
#include "common/mpi/session.hpp"
#include "common/mpi/strings.hpp"

namespace {

int failures = 0;
int world_rank = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  std::cerr << "rank " << world_rank << ": FAILED " << what << "\n";
}

// Rank r's string: r copies of a letter, so rank 0 sends nothing and lengths all differ.
std::string text_of(int r) { return std::string(static_cast<std::size_t>(r), static_cast<char>('a' + r)); }

void check_collectives(MPI_Comm comm, int rank, int size) {
  const auto gathered = meshbench::mpi::gather_strings(text_of(rank), comm);
  if (rank == 0) {
    expect(gathered.size() == static_cast<std::size_t>(size), "gather_strings gives rank 0 one string per rank");
    for (int r = 0; r < size && r < static_cast<int>(gathered.size()); ++r) {
      expect(gathered[static_cast<std::size_t>(r)] == text_of(r), "gather_strings keeps rank " + std::to_string(r) + "'s string");
    }
  } else {
    expect(gathered.empty(), "gather_strings gives other ranks nothing");
  }

  const auto all = meshbench::mpi::allgather_strings(text_of(rank), comm);
  expect(all.size() == static_cast<std::size_t>(size), "allgather_strings gives every rank one string per rank");
  for (int r = 0; r < size && r < static_cast<int>(all.size()); ++r) {
    expect(all[static_cast<std::size_t>(r)] == text_of(r), "allgather_strings keeps rank " + std::to_string(r) + "'s string");
  }

  for (int root = 0; root < size; ++root) {
    std::string text = rank == root ? "from root " + std::to_string(root) : "stale text of rank " + std::to_string(rank);
    meshbench::mpi::broadcast_string(text, comm, root);
    expect(text == "from root " + std::to_string(root), "broadcast_string from root " + std::to_string(root));
  }
  // Even ranks share one value, odd ranks another, and the last rank (from 3 ranks on) its own:
  // each distinct value arrives once, in order of its first rank.
  const bool own = size >= 3 && rank == size - 1;
  const std::string shared = own ? "last rank's own" : (rank % 2 == 0 ? "even" : std::string(4, 'o'));
  const auto distinct = meshbench::mpi::gather_distinct_strings(shared, comm);
  if (rank == 0) {
    std::vector<std::string> want{"even"};
    if (size >= 2) want.emplace_back(4, 'o');
    if (size >= 3) want.emplace_back("last rank's own");
    expect(distinct.values == want, "gather_distinct_strings gives each distinct value once, " + std::to_string(distinct.values.size()) +
                                        " of " + std::to_string(want.size()));
    expect(distinct.value_of_rank.size() == static_cast<std::size_t>(size), "gather_distinct_strings indexes every rank");
    for (int r = 0; r < size && r < static_cast<int>(distinct.value_of_rank.size()); ++r) {
      const auto k = static_cast<std::size_t>(distinct.value_of_rank[static_cast<std::size_t>(r)]);
      const std::string expected = size >= 3 && r == size - 1 ? "last rank's own" : (r % 2 == 0 ? "even" : std::string(4, 'o'));
      expect(k < distinct.values.size() && distinct.values[k] == expected, "gather_distinct_strings maps rank " + std::to_string(r));
    }
  } else {
    expect(distinct.values.empty() && distinct.value_of_rank.empty(), "gather_distinct_strings gives other ranks nothing");
  }

  std::string empty = rank == 0 ? "" : "not empty";
  meshbench::mpi::broadcast_string(empty, comm);
  expect(empty.empty(), "broadcast_string of an empty string empties every rank's");
}

// The members of `comm` in `part`, in `comm`'s order, as each member of `part` knows them.
std::vector<int> members(MPI_Comm part, int rank_in_comm) {
  int size = 0;
  MPI_Comm_size(part, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  MPI_Allgather(&rank_in_comm, 1, MPI_INT, ranks.data(), 1, MPI_INT, part);
  return ranks;
}

std::string text_of(const std::vector<int>& ranks) {
  std::string text;
  for (int r : ranks) text += (text.empty() ? "" : ",") + std::to_string(r);
  return "{" + text + "}";
}

void check_host_split(MPI_Comm comm, int rank, int size) {
  // mpirun starts every rank on this machine: one host, the whole communicator in its order.
  std::vector<int> everyone(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) everyone[static_cast<std::size_t>(r)] = r;
  MPI_Comm host = meshbench::mpi::split_by_host(comm);
  int host_rank = -1;
  MPI_Comm_rank(host, &host_rank);
  const auto got = members(host, rank);
  expect(got == everyone, "split_by_host on one machine keeps every member in order: " + text_of(got));
  expect(host_rank == rank, "split_by_host keeps rank " + std::to_string(rank) + " (got " + std::to_string(host_rank) + ")");
  MPI_Comm_free(&host);

  // Ranks that pretend other hosts: a b a c b ..., so hosts hold ranks that are not neighbours.
  const auto pretended = [](int r) { return std::string(1, "abacb"[r % 5]); };
  MPI_Comm part = meshbench::mpi::split_by_host(comm, pretended(rank));
  std::vector<int> want;
  for (int r = 0; r < size; ++r) {
    if (pretended(r) == pretended(rank)) want.push_back(r);
  }
  const auto split = members(part, rank);
  expect(split == want, "split_by_host of host " + pretended(rank) + " holds " + text_of(want) + ", got " + text_of(split));
  MPI_Comm_free(&part);
}

}  // namespace

int main() {
  int finalized = 0;
  {
    const meshbench::mpi::MpiSession outer;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    expect(outer.started(), "the first session starts MPI");
    {
      const meshbench::mpi::MpiSession inner;
      expect(!inner.started(), "a session inside another does not start MPI again");
    }
    MPI_Finalized(&finalized);
    expect(finalized == 0, "an inner session's end leaves MPI running");

    check_collectives(MPI_COMM_WORLD, world_rank, size);
    check_host_split(MPI_COMM_WORLD, world_rank, size);
    // A communicator whose rank 0 is not world rank 0: the odd world ranks, in reverse order.
    MPI_Comm odd = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, size - world_rank, &odd);
    int rank = 0, odd_size = 0;
    MPI_Comm_rank(odd, &rank);
    MPI_Comm_size(odd, &odd_size);
    check_collectives(odd, rank, odd_size);
    check_host_split(odd, rank, odd_size);
    MPI_Comm_free(&odd);

    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) std::cout << (total == 0 ? "ok" : "FAILED") << ": " << size << " ranks, " << total << " failed expectation(s)\n";
    failures = total;
  }
  MPI_Finalized(&finalized);
  if (finalized == 0) {
    std::cerr << "rank " << world_rank << ": FAILED the session that started MPI finalises it\n";
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
