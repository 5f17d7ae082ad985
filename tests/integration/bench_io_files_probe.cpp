// The shared-file method of `meshbench io` (bench/io/src/io_files.hpp) on 2 ranks: a shard written
// and read back at each rank's offset, and an open that fails on every rank stopping the write and
// the read alike, with the open's error and no bytes. Prints one line per failed expectation and
// exits 1 when there was one.
#include <mpi.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "bench/io/src/io_files.hpp"
#include "common/mpi/strings.hpp"

namespace {

namespace io = meshbench::bench::io;

int failures = 0;
int world_rank = 0;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  ++failures;
  std::cerr << "rank " << world_rank << ": FAILED " << what << "\n";
}

constexpr std::uint64_t kShard = 3 * 4096 + 512;  // more than one window, and not whole blocks

io::ShardTask task_at(const std::string& path) { return {path, static_cast<std::uint64_t>(world_rank) * kShard, kShard, 1, world_rank}; }

void check_round_trip(const std::string& dir) {
  io::IoBuffer buffer(4096);
  const std::uint64_t windows = (kShard + buffer.size() - 1) / buffer.size();
  const io::ShardTask task = task_at(dir + "/shared.bin");
  const io::RankPhase w = io::write_shared_file(task, buffer, MPI_COMM_WORLD, windows);
  expect(w.error.empty(), "the shared write succeeds: " + w.error);
  expect(w.bytes == kShard, "the shared write writes the shard");
  const io::RankPhase r = io::read_shared_file(task, buffer, MPI_COMM_WORLD, windows);
  expect(r.error.empty(), "the shared read succeeds: " + r.error);
  expect(r.bytes == kShard && r.wrong == 0, "the shared read reads the shard back as written");
}

// An open that fails: the phase stops before any byte, saying which file and why.
void check_failed_open(const io::RankPhase& p, const std::string& path, const std::string& phase) {
  expect(p.error.rfind("MPI_File_open " + path + ": ", 0) == 0, phase + " reports the failed open, not \"" + p.error + "\"");
  expect(p.bytes == 0 && p.wrong == 0 && p.seconds == 0, phase + " stops at the failed open");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  std::string dir;
  if (world_rank == 0) {
    std::string pattern = (std::filesystem::temp_directory_path() / "meshbench-io-files-XXXXXX").string();
    if (::mkdtemp(pattern.data()) != nullptr) dir = pattern;
  }
  meshbench::mpi::broadcast_string(dir, MPI_COMM_WORLD);
  expect(!dir.empty(), "a temporary folder");
  if (!dir.empty()) check_round_trip(dir);

  // No folder can be made under /proc: the open fails on every rank, for writing and reading.
  io::IoBuffer buffer(4096);
  const std::string missing = "/proc/meshbench-no-such-folder/shared.bin";
  check_failed_open(io::write_shared_file(task_at(missing), buffer, MPI_COMM_WORLD, 4), missing, "the write");
  check_failed_open(io::read_shared_file(task_at(missing), buffer, MPI_COMM_WORLD, 4), missing, "the read");

  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank == 0 && !dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0) std::cout << (total == 0 ? "ok" : "FAILED") << ": " << total << " failed expectation(s)\n";
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
