#pragma once
// Results files with known numbers for the report and compare tests, written by the results
// module's own writer so the tests read exactly what `run` would write.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "mapping/mapping.hpp"
#include "mapping/workload.hpp"
#include "results/writer.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace meshbench::analysis::testing {

// Four CPU slots on two hosts ("node-0": slots 0,1; "node-1": slots 2,3); layout TP2 EP2 ETP1
// (so DP2 EDP2). Mappings are built with mapping::make_mapping, so groups and digests are real.
class FixtureFile {
 public:
  FixtureFile();
  // The same layout on another topology of four slots (e.g. nodes with a NIC).
  explicit FixtureFile(topology::ClusterTopology topology);
  // Adds a mapping of `order` with placement `slot_of_rank` (identity when empty).
  const mapping::Mapping& add_mapping(const std::string& name, const std::string& order, std::vector<int> slot_of_rank = {});
  void set_workload_json(std::string json) { header_.layout.workload_json = std::move(json); }
  // The layout as recorded (a test that needs another one changes it here).
  results::LayoutRecord& layout() { return header_.layout; }
  // The run as recorded (start time, status, ...).
  results::RunInfo& run() { return header_.run; }
  void set_version(const std::string& name, const std::string& value);
  void set_env(const std::string& name, const std::string& value);
  void set_doctor_json(std::string json) { header_.provenance.doctor_json = std::move(json); }
  // Stored as the root attribute calibration_json, as the probe and run --cost-model store it.
  void set_calibration_json(std::string json) { calibration_json_ = std::move(json); }
  void set_predicted(const std::string& mapping, const std::vector<std::pair<std::string, double>>& predicted);
  // Keeps a plan of the mappings added so far in the file (/plan_json), as `run` does; with a
  // workload its predictions are per step.
  void keep_plan(const std::optional<mapping::Workload>& workload);

  // One point: median `median_us`, busbw from the op's factor; `samples` (time order) become
  // /samples; `group_us` the per-group medians (default: every group at the median).
  results::PointRecord& add_point(const std::string& mapping, const std::string& dim, const std::string& op, std::uint64_t bytes,
                                  double median_us, std::vector<double> samples = {}, std::vector<double> group_us = {},
                                  const std::string& timing = "per_iteration");

  // Writes the file; returns its path.
  std::string write(const std::filesystem::path& path) const;

  std::vector<results::PointRecord>& points() { return points_; }

 private:
  topology::ClusterTopology topo_;
  results::RunHeader header_;
  std::vector<mapping::Mapping> mappings_;
  std::vector<results::PointRecord> points_;
  std::string calibration_json_;
};

// Two nodes of two CPU slots (PHB between them), each with one NIC of `gbit` Gbit/s that both
// slots reach: groups across the nodes share it.
topology::ClusterTopology nic_cluster(double gbit = 1.0);
// Marks a point as measured one group at a time (`run --isolated`).
void make_isolated(results::PointRecord& point);

// A per-test scratch folder, removed afterwards.
using ScratchDir = test_support::ScratchDir;

// Samples around `center` with a fixed, mildly irregular pattern (no randomness: tests are
// repeatable): n values in [center·(1−spread), center·(1+spread)].
std::vector<double> pattern_samples(double center, int n, double spread = 0.02, int phase = 0);

}  // namespace meshbench::analysis::testing
