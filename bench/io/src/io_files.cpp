#include "bench/io/src/io_files.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "bench/io/io_pattern.hpp"
#include "bench/io/io_plan.hpp"

namespace meshbench::bench::io {

namespace {

// Accumulates only the timed stretches of a phase: the pattern's fill and check sit outside them.
class Stopwatch {
 public:
  void start() { begin_ = std::chrono::steady_clock::now(); }
  void stop() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin_).count(); }
  double seconds() const { return total_; }

 private:
  std::chrono::steady_clock::time_point begin_;
  double total_ = 0;
};

std::string errno_text(const std::string& what, const std::string& path) { return what + " " + path + ": " + std::strerror(errno); }

// Closes a POSIX descriptor on every way out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

// A whole `count` bytes at `offset`, through short writes and EINTR.
bool write_all(int fd, const std::byte* data, std::size_t count, std::uint64_t offset) {
  while (count > 0) {
    const ssize_t n = ::pwrite(fd, data, count, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    count -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
  return true;
}

// Up to `count` bytes at `offset` (fewer at the end of the file); -1 on an error. O_DIRECT
// requests whole blocks, so `request` may exceed `count`.
ssize_t read_some(int fd, std::byte* data, std::size_t count, std::size_t request, std::uint64_t offset) {
  std::size_t got = 0;
  while (got < count) {
    const ssize_t n = ::pread(fd, data + got, request - got, static_cast<off_t>(offset + got));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return static_cast<ssize_t>(std::min(got, count));
}

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

// Opens the shared file on every rank of `comm` (collective). Every rank goes on only when all
// opened it: otherwise each closes what it opened, `error` says why (this rank's failure, or that
// another rank's open failed) and MPI_FILE_NULL comes back.
MPI_File open_on_every_rank(const std::string& path, int mode, MPI_Comm comm, std::string& error) {
  MPI_File fh = MPI_FILE_NULL;
  const int rc = MPI_File_open(comm, path.c_str(), mode, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) error = "MPI_File_open " + path + ": " + mpi_error_text(rc);
  int mine = rc == MPI_SUCCESS ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  if (all == 1) return fh;
  if (fh != MPI_FILE_NULL) MPI_File_close(&fh);
  if (error.empty()) error = "MPI_File_open " + path + " failed on another rank";
  return MPI_FILE_NULL;
}

}  // namespace

IoBuffer::IoBuffer(std::size_t bytes) : size_(static_cast<std::size_t>(round_up(std::max<std::size_t>(bytes, 1), kBlock))) {
  void* p = std::aligned_alloc(kBlock, size_);
  if (p == nullptr) throw std::bad_alloc();
  data_.reset(static_cast<std::byte*>(p));
}

void IoBuffer::Free::operator()(std::byte* p) const { std::free(p); }

RankPhase write_own_file(const ShardTask& task, IoBuffer& buffer) {
  RankPhase r;
  const std::size_t window = buffer.size();
  fill_pattern(buffer.span().first(static_cast<std::size_t>(std::min<std::uint64_t>(window, task.bytes))), task.pass, task.rank, 0);
  Stopwatch clock;
  clock.start();
  Fd f{::open(task.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
  if (f.fd < 0) {
    r.error = errno_text("cannot create", task.path);
    return r;
  }
  for (std::uint64_t done = 0; done < task.bytes;) {
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(window, task.bytes - done));
    if (done > 0) {
      clock.stop();
      fill_pattern(buffer.span().first(count), task.pass, task.rank, done);
      clock.start();
    }
    if (!write_all(f.fd, buffer.span().data(), count, done)) {
      r.error = errno_text("write failed on", task.path);
      return r;
    }
    done += count;
    r.bytes = done;
  }
  if (::fsync(f.fd) != 0) {
    r.error = errno_text("fsync failed on", task.path);
    return r;
  }
  if (::close(f.release()) != 0) r.error = errno_text("close failed on", task.path);
  clock.stop();
  r.seconds = clock.seconds();
  return r;
}

RankPhase read_own_file(const ShardTask& task, IoBuffer& buffer) {
  RankPhase r;
  r.cached_fraction = drop_cached_pages(task.path, 0, task.bytes);
  const std::size_t window = buffer.size();
  Stopwatch clock;
  clock.start();
  r.read_mode = "o_direct";
  Fd f{::open(task.path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC)};
  if (f.fd < 0 && errno == EINVAL) {  // the filesystem takes no O_DIRECT: the dropped cache it is
    r.read_mode = "fadvise_dontneed";
    f.fd = ::open(task.path.c_str(), O_RDONLY | O_CLOEXEC);
  }
  if (f.fd < 0) {
    r.error = errno_text("cannot open", task.path);
    return r;
  }
  for (std::uint64_t done = 0; done < task.bytes;) {
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(window, task.bytes - done));
    ssize_t got = read_some(f.fd, buffer.span().data(), count, static_cast<std::size_t>(round_up(count, kBlock)), done);
    if (got < 0 && errno == EINVAL && r.read_mode == "o_direct" && done == 0) {
      // Opened with O_DIRECT but refused at the read (some FUSE and network filesystems).
      r.read_mode = "fadvise_dontneed";
      ::close(f.release());
      f.fd = ::open(task.path.c_str(), O_RDONLY | O_CLOEXEC);
      if (f.fd < 0) {
        r.error = errno_text("cannot open", task.path);
        return r;
      }
      got = read_some(f.fd, buffer.span().data(), count, count, done);
    }
    if (got < 0) {
      r.error = errno_text("read failed on", task.path);
      return r;
    }
    clock.stop();
    r.bytes += static_cast<std::uint64_t>(got);
    r.wrong += count_wrong_words(buffer.span().first(static_cast<std::size_t>(got)), task.pass, task.rank, done);
    if (static_cast<std::size_t>(got) < count) {
      // A short file: every missing word is wrong, as a hole would be.
      r.wrong += static_cast<std::int64_t>((task.bytes - done - static_cast<std::uint64_t>(got) + 7) / 8);
      r.error = task.path + " is shorter than the shard written";
      return r;
    }
    done += count;
    clock.start();
  }
  ::close(f.release());
  clock.stop();
  r.seconds = clock.seconds();
  return r;
}

RankPhase write_shared_file(const ShardTask& task, IoBuffer& buffer, MPI_Comm comm, std::uint64_t windows) {
  RankPhase r;
  const std::size_t window = buffer.size();
  fill_pattern(buffer.span().first(static_cast<std::size_t>(std::min<std::uint64_t>(window, task.bytes))), task.pass, task.rank, 0);
  Stopwatch clock;
  clock.start();
  MPI_File fh = open_on_every_rank(task.path, MPI_MODE_CREATE | MPI_MODE_WRONLY, comm, r.error);
  if (fh == MPI_FILE_NULL) return r;
  std::uint64_t done = 0;
  for (std::uint64_t w = 0; w < windows; ++w) {
    // After an error or past its shard, a rank still joins every collective call, with no bytes.
    const std::uint64_t left = r.error.empty() ? task.bytes - done : 0;
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(window, left));
    if (done > 0 && count > 0) {
      clock.stop();
      fill_pattern(buffer.span().first(count), task.pass, task.rank, done);
      clock.start();
    }
    MPI_Status status;
    const int wrc = MPI_File_write_at_all(fh, static_cast<MPI_Offset>(task.offset + done), buffer.span().data(), static_cast<int>(count),
                                          MPI_BYTE, &status);
    if (wrc != MPI_SUCCESS && r.error.empty()) r.error = "MPI_File_write_at_all " + task.path + ": " + mpi_error_text(wrc);
    done += count;
  }
  r.bytes = done;
  if (const int src = MPI_File_sync(fh); src != MPI_SUCCESS && r.error.empty())
    r.error = "MPI_File_sync " + task.path + ": " + mpi_error_text(src);
  if (const int crc = MPI_File_close(&fh); crc != MPI_SUCCESS && r.error.empty())
    r.error = "MPI_File_close " + task.path + ": " + mpi_error_text(crc);
  clock.stop();
  r.seconds = clock.seconds();
  return r;
}

RankPhase read_shared_file(const ShardTask& task, IoBuffer& buffer, MPI_Comm comm, std::uint64_t windows) {
  RankPhase r;
  // MPI-IO offers no portable O_DIRECT: the written range's cache is dropped instead.
  r.read_mode = "fadvise_dontneed";
  r.cached_fraction = drop_cached_pages(task.path, task.offset, task.bytes);
  const std::size_t window = buffer.size();
  Stopwatch clock;
  clock.start();
  MPI_File fh = open_on_every_rank(task.path, MPI_MODE_RDONLY, comm, r.error);
  if (fh == MPI_FILE_NULL) return r;
  std::uint64_t done = 0;
  for (std::uint64_t w = 0; w < windows; ++w) {
    const std::uint64_t left = r.error.empty() ? task.bytes - done : 0;
    const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(window, left));
    MPI_Status status;
    const int rrc = MPI_File_read_at_all(fh, static_cast<MPI_Offset>(task.offset + done), buffer.span().data(), static_cast<int>(count),
                                         MPI_BYTE, &status);
    if (count == 0) continue;
    clock.stop();
    int got = 0;
    if (rrc != MPI_SUCCESS) {
      if (r.error.empty()) r.error = "MPI_File_read_at_all " + task.path + ": " + mpi_error_text(rrc);
    } else {
      MPI_Get_count(&status, MPI_BYTE, &got);
      r.bytes += static_cast<std::uint64_t>(got);
      r.wrong += count_wrong_words(buffer.span().first(static_cast<std::size_t>(got)), task.pass, task.rank, done);
      if (static_cast<std::size_t>(got) < count) {
        r.wrong += static_cast<std::int64_t>((task.bytes - done - static_cast<std::uint64_t>(got) + 7) / 8);
        r.error = task.path + " is shorter than the shards written";
      }
    }
    done += count;
    clock.start();
  }
  if (const int crc = MPI_File_close(&fh); crc != MPI_SUCCESS && r.error.empty())
    r.error = "MPI_File_close " + task.path + ": " + mpi_error_text(crc);
  clock.stop();
  r.seconds = clock.seconds();
  return r;
}

double drop_cached_pages(const std::string& path, std::uint64_t offset, std::uint64_t bytes) {
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0 || bytes == 0) return -1;
  (void)::posix_fadvise(f.fd, static_cast<off_t>(offset), static_cast<off_t>(bytes), POSIX_FADV_DONTNEED);
  const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t start = offset / page * page;
  const std::uint64_t length = offset + bytes - start;
  void* map = ::mmap(nullptr, length, PROT_READ, MAP_SHARED, f.fd, static_cast<off_t>(start));
  if (map == MAP_FAILED) return -1;
  std::vector<unsigned char> resident((length + page - 1) / page);
  double fraction = -1;
  if (::mincore(map, length, resident.data()) == 0) {
    const auto cached = std::count_if(resident.begin(), resident.end(), [](unsigned char c) { return (c & 1U) != 0; });
    fraction = static_cast<double>(cached) / static_cast<double>(resident.size());
  }
  ::munmap(map, length);
  return fraction;
}

void corrupt_middle_word(const std::string& path, std::uint64_t offset, std::uint64_t bytes) {
  Fd f{::open(path.c_str(), O_RDWR | O_CLOEXEC)};
  if (f.fd < 0 || bytes < 8) return;
  const std::uint64_t at = offset + (bytes / 2) / 8 * 8;
  std::uint64_t word = 0;
  if (::pread(f.fd, &word, 8, static_cast<off_t>(at)) != 8) return;
  word = ~word;
  (void)::pwrite(f.fd, &word, 8, static_cast<off_t>(at));
  (void)::fsync(f.fd);
}

std::string filesystem_type(const std::string& folder) {
  struct statfs st {};
  if (::statfs(folder.c_str(), &st) != 0) return "unknown";
  struct Known {
    unsigned long magic;
    const char* name;
  };
  // The kernel's magic numbers (linux/magic.h), and Lustre's, GPFS's and BeeGFS's own.
  static constexpr Known kKnown[] = {
      {0xEF53, "ext4"},       {0x58465342, "xfs"},  {0x01021994, "tmpfs"},  {0x9123683E, "btrfs"},   {0x6969, "nfs"},
      {0x0BD00BD0, "lustre"}, {0x47504653, "gpfs"}, {0x19830326, "beegfs"}, {0x794C7630, "overlay"}, {0x65735546, "fuse"},
      {0x2FC12FC1, "zfs"},    {0xFF534D42, "cifs"}, {0x858458F6, "ramfs"},  {0x00C36400, "ceph"},    {0x5346414F, "afs"},
  };
  const auto magic = static_cast<unsigned long>(st.f_type);
  for (const auto& k : kKnown) {
    if (k.magic == magic) return k.name;
  }
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%lx", magic);
  return hex;
}

}  // namespace meshbench::bench::io
