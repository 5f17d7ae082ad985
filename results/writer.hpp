#pragma once
#include <string>
#include <vector>

#include "results/records.hpp"
#include "topology/cluster.hpp"

namespace meshbench::results {

// What a results file holds before the first measurement.
struct RunHeader {
  RunInfo run;
  Provenance provenance;
  LayoutRecord layout;
  std::vector<MappingRecord> mappings;
  const topology::ClusterTopology* topology = nullptr;
  std::string topology_json;  // the topology's JSON form (topology module), kept verbatim
  std::string plan_json;      // the plan the mappings came from (mapping module), kept verbatim
};

// Checks that `path` can be written before any work starts: InputError when its folder is
// missing or unwritable, or when the file exists and neither `force` nor `resume` is given.
void check_output_path(const std::string& path, bool force, bool resume);

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

  void append(const PointRecord& point);
  void record_failure(const Failure& failure);
  void record_transports(const std::vector<TransportUse>& uses);
  void finish(const std::string& status, const std::string& finished_at);
  const std::string& path() const { return path_; }

 private:
  explicit ResultsWriter(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace meshbench::results
