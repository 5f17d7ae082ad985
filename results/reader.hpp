#pragma once
#include <map>
#include <string>
#include <vector>

#include "results/point_key.hpp"
#include "results/records.hpp"

namespace meshbench::results {

// One node of the stored topology, enough to name the hosts of a slow group.
struct StoredNode {
  std::string hostname;
  int first_slot = 0;
  int slot_count = 0;
};

// A results file read back. Refuses, with InputError naming the way out, a missing file, a
// file that is not HDF5, an HDF5 file that meshbench did not write, and another schema version;
// and a file so damaged that HDF5 crashes reading it (read once in a child process first).
class ResultsFile {
 public:
  // How much of a file to read: everything, or all but /group_timings and /samples — most of a
  // large file's bytes — for a reader of the rows alone (calibrate: 100,000 points).
  enum class Reading { everything, rows };
  static ResultsFile open(const std::string& path, Reading reading = Reading::everything);
  // The same without the child process: for `run` (rank 0 rereading what it wrote, or resuming),
  // an MPI process where a fork is unwelcome (RDMA-registered memory, the watchdog's threads).
  static ResultsFile open_in_mpi_job(const std::string& path);

  const std::string& path() const { return path_; }
  int schema_version() const { return schema_version_; }
  const RunInfo& run() const { return run_; }
  const Provenance& provenance() const { return provenance_; }
  // The file's layout; in a file of several layouts (schema version 2), the first of them.
  const LayoutRecord& layout() const { return layout_; }
  // Every layout the file holds, each with its name (one, unnamed, in a file of one layout).
  const std::vector<NamedLayout>& layouts() const { return layouts_; }
  bool several_layouts() const { return layouts_.size() > 1; }
  // The layout a mapping belongs to (layout() for a file of one layout or an unknown name).
  const LayoutRecord& layout_of_mapping(const std::string& mapping) const;
  const NamedLayout* find_layout(const std::string& name) const;
  // The layout's text in this file's point keys (point_key.hpp), and a row's key with it: the
  // layout of the row's mapping.
  const std::string& layout_key() const { return layout_key_; }
  const std::string& layout_key_of(const std::string& mapping) const;
  template <PointRow Row>
  PointKey key_of(const Row& row) const {
    return results::key_of(row, layout_key_of(row.point.mapping));
  }
  const std::vector<MappingRecord>& mappings() const { return mappings_; }
  const std::vector<MeasurementRow>& measurements() const { return measurements_; }
  const std::vector<GroupTiming>& group_timings() const { return group_timings_; }
  const std::vector<Sample>& samples() const { return samples_; }
  // Per-round medians (empty for a run of one round, and for files written before rounds).
  const std::vector<RoundMedian>& round_medians() const { return round_medians_; }
  const std::vector<ModelledTime>& modelled_times() const { return modelled_times_; }
  const std::vector<StateProbe>& state_probes() const { return state_probes_; }
  // Per visit, host and NIC: the counters' growth around the visit (run without --no-nic-counters).
  const std::vector<NicCounterDelta>& nic_counters() const { return nic_counters_; }
  const std::vector<Failure>& failures() const { return failures_; }
  // Only in runs that sampled NVML (run --gpu-sample-ms) and that measured host copies.
  const std::vector<GpuHealthRow>& gpu_health() const { return gpu_health_; }
  const std::vector<HostCopyRow>& host_copies() const { return host_copies_; }
  const std::vector<TransportUse>& transports() const { return transports_; }
  // Checkpoint bandwidth rows (meshbench io); empty when io never wrote to this file.
  const std::vector<IoRow>& io_rows() const { return io_rows_; }
  const std::vector<StoredNode>& nodes() const { return nodes_; }
  const std::string& topology_json() const { return topology_json_; }
  // The plan (mapping/plan.hpp JSON, with placements) the run measured; empty if none was kept.
  const std::string& plan_json() const { return plan_json_; }
  // The calibration stored with the file (ResultsWriter::record_calibration); empty if none.
  const std::string& calibration_json() const { return calibration_json_; }
  // The host a slot sits on ("" when out of range).
  std::string host_of_slot(int slot) const;
  const MappingRecord* find_mapping(const std::string& name) const;

 private:
  static ResultsFile read(const std::string& path, Reading reading = Reading::everything);
  std::string path_;
  int schema_version_ = 0;
  RunInfo run_;
  Provenance provenance_;
  LayoutRecord layout_;
  std::vector<NamedLayout> layouts_;
  std::string layout_key_;
  std::map<std::string, std::string> layout_key_of_mapping_;  // mapping name -> its layout's key; empty for one layout
  std::vector<MappingRecord> mappings_;
  std::vector<MeasurementRow> measurements_;
  std::vector<GroupTiming> group_timings_;
  std::vector<Sample> samples_;
  std::vector<RoundMedian> round_medians_;
  std::vector<ModelledTime> modelled_times_;
  std::vector<StateProbe> state_probes_;
  std::vector<NicCounterDelta> nic_counters_;
  std::vector<Failure> failures_;
  std::vector<GpuHealthRow> gpu_health_;
  std::vector<HostCopyRow> host_copies_;
  std::vector<TransportUse> transports_;
  std::vector<IoRow> io_rows_;
  std::vector<StoredNode> nodes_;
  std::string topology_json_;
  std::string plan_json_;
  std::string calibration_json_;
};

}  // namespace meshbench::results
