#pragma once
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "results/records.hpp"
#include "results/schema.hpp"
#include "topology/cluster.hpp"

namespace meshbench::results {

// What a results file holds before the first measurement.
struct RunHeader {
  RunInfo run;
  Provenance provenance;
  LayoutRecord layout;
  // Several layouts (each mapping names its own): the file is written as version 2 with /layouts
  // instead of /layout, and `layout` is the first of them. Empty for a file of one layout.
  std::vector<NamedLayout> layouts;
  std::vector<MappingRecord> mappings;
  const topology::ClusterTopology* topology = nullptr;
  std::string topology_json;  // the topology's JSON form (topology module), kept verbatim
  std::string plan_json;      // the plan the mappings came from (mapping module), kept verbatim
};

// Checks that `path` can be written before any work starts: InputError when its folder is
// missing or unwritable, or when the file exists and neither `force` nor `resume` is given.
void check_output_path(const std::string& path, bool force, bool resume);

// A point could not be stored: the filesystem lacks the room it needs, or a write failed. The
// run cannot go on measuring what it cannot keep; the file holds every point stored before.
class StorageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Rows already in the growing tables, for bytes_needed_to_store.
struct StoredRows {
  std::uint64_t measurements = 0, group_timings = 0, samples = 0;
};
// The most bytes appending `point` to tables holding `stored` may take on disk: its rows, the
// string heap, any new chunk a table grows into (HDF5 allocates chunks whole), metadata, and a
// reserve that keeps room for the failure record written when the run stops.
std::uint64_t bytes_needed_to_store(const PointRecord& point, const StoredRows& stored);

// Writes a run's results as it goes. The file is created complete with its header under a
// temporary name and renamed into place; each point is then appended in its own
// open-write-close, so a crash or a killed rank loses at most the point in flight and the
// file on disk is always a closed, readable HDF5 file.
class ResultsWriter {
 public:
  static ResultsWriter create(const std::string& path, const RunHeader& header, bool force);
  // Reopens an interrupted run's file; InputError when it is not a meshbench file, has another
  // schema version, or was made for another layout, world size or set of mappings.
  static ResultsWriter resume(const std::string& path, const RunHeader& expected, std::vector<PointKey>& completed);
  // Opens an existing meshbench results file (of this schema version) to add tables to, as
  // `meshbench io --append` adds /io to a run's file; InputError when it is missing, not a
  // meshbench results file, or not writable.
  static ResultsWriter append_to(const std::string& path);

  // StorageError when the filesystem has less room than bytes_needed_to_store(point), checked
  // before anything is written, or when a write fails. The measurement row is written last:
  // --resume skips a point by its row, so a row never stands for samples that are missing.
  void append(const PointRecord& point);
  void record_failure(const Failure& failure);
  void record_transports(const std::vector<TransportUse>& uses);
  // run --host-copies: each slot's pinned-memory copy bandwidth (the table /host_copies).
  void record_host_copies(const std::vector<HostCopyRow>& rows);
  // The cost model fitted from this file's points, or the one its mappings were planned with:
  // `meshbench calibrate`'s JSON (mapping/calibration.hpp), as the root attribute calibration_json.
  void record_calibration(const std::string& calibration_json);
  // Checkpoint bandwidth rows (meshbench io), appended to /io, which the first rows create.
  void record_io(const std::vector<IoRow>& rows);
  void finish(const std::string& status, const std::string& finished_at);
  const std::string& path() const { return path_; }
  // How long each write waits for another process that holds the file open (kWriterLockPatience)
  // before it writes without HDF5's lock; whether any write had to.
  void set_lock_patience(std::chrono::milliseconds patience) { lock_patience_ = patience; }
  bool wrote_past_a_reader() const { return lock_ignored_; }

 private:
  explicit ResultsWriter(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::chrono::milliseconds lock_patience_ = kWriterLockPatience;
  bool lock_ignored_ = false;
};

// A whole results file at once, for results that exist before their file does (logs of other
// tools turned into results): built in memory, header, points and the final status together,
// then written with write_file_atomically, so the file appears complete or not at all.
// InputError as check_output_path (an existing file is kept unless `force`); StorageError when
// building or writing it fails.
void write_results_file(const std::string& path, const RunHeader& header, const std::vector<PointRecord>& points, bool force);

}  // namespace meshbench::results
