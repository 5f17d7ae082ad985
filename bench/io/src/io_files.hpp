#pragma once
// `meshbench io`'s file side: one rank's write and read-back of its shard, into a file of its own
// (POSIX) or at its offset in the one shared file (MPI-IO), each timed; and what it can do about
// the page cache between the two, which an unprivileged process cannot drop.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace meshbench::bench::io {

// One rank's part of one pass: its shard at `offset` of `path`, written or read `window` bytes a
// call, with the pattern of pass `pass` (io_pattern.hpp).
struct ShardTask {
  std::string path;
  std::uint64_t offset = 0;
  std::uint64_t bytes = 0;
  std::uint64_t pass = 0;
  int rank = 0;
};

// What one rank measured in one phase. `seconds` counts the open, the write (or read) calls,
// fsync and the close, not the filling or checking of the pattern between windows. `error` is
// the first failure (the phase stopped there), empty when none.
struct RankPhase {
  double seconds = 0;
  std::uint64_t bytes = 0;
  std::int64_t wrong = 0;
  std::string read_mode;        // reads: o_direct | fadvise_dontneed
  double cached_fraction = -1;  // reads: share of the shard's pages cached as the read began
  std::string error;
};

// A window buffer aligned for O_DIRECT; its size is rounded up to whole 4 KiB blocks.
class IoBuffer {
 public:
  explicit IoBuffer(std::size_t bytes);
  std::span<std::byte> span() { return {data_.get(), size_}; }
  std::size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(std::byte* p) const;
  };
  std::unique_ptr<std::byte, Free> data_;
  std::size_t size_ = 0;
};

// The file-per-rank method: create, write, fsync, close; then, after the cache is dropped,
// read back with O_DIRECT where the filesystem takes it (else buffered) and verify.
RankPhase write_own_file(const ShardTask& task, IoBuffer& buffer);
RankPhase read_own_file(const ShardTask& task, IoBuffer& buffer);

// The shared-file method over `comm` (collective: every rank calls it, `windows` times
// MPI_File_write_at_all / read_at_all, a rank past its shard's end with no bytes).
RankPhase write_shared_file(const ShardTask& task, IoBuffer& buffer, MPI_Comm comm, std::uint64_t windows);
RankPhase read_shared_file(const ShardTask& task, IoBuffer& buffer, MPI_Comm comm, std::uint64_t windows);

// posix_fadvise(DONTNEED) on the written range: the kernel drops clean cached pages it can (none
// on tmpfs, where the file is the cache). Then the share of the range's pages still cached (mincore).
double drop_cached_pages(const std::string& path, std::uint64_t offset, std::uint64_t bytes);

// Test only (io --test-corrupt): flips the bits of the 8 bytes in the middle of the range, on disk.
void corrupt_middle_word(const std::string& path, std::uint64_t offset, std::uint64_t bytes);

// The filesystem type of `folder` by statfs's magic number: ext4, xfs, tmpfs, lustre, nfs, ... .
std::string filesystem_type(const std::string& folder);

}  // namespace meshbench::bench::io
