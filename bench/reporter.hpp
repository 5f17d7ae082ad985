#pragma once
#include <chrono>
#include <iosfwd>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mapping/mapping.hpp"
#include "results/records.hpp"
#include "results/writer.hpp"

namespace meshbench::bench {

// The runner produces results; reporters present or store them (as Google Benchmark does).
// Only world rank 0 has reporters.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void begin_mapping(const mapping::Mapping& /*m*/, int /*index*/, int /*count*/) {}
  // `skipped` says why a dimension is not measured (e.g. its groups equal another's); empty otherwise.
  virtual void begin_dimension(mapping::Dim /*dim*/, int /*groups*/, int /*group_size*/, const std::string& /*skipped*/) {}
  virtual void point(const results::PointRecord& point) = 0;
  // A point not measured for a reason that is a failure of the run (its buffers do not fit).
  virtual void point_skipped(const results::Failure& /*failure*/) {}
  virtual void end_run(bool /*complete*/) {}
};

// nccl-tests-like tables, one per mapping and dimension.
class ConsoleReporter final : public Reporter {
 public:
  explicit ConsoleReporter(std::ostream& out) : out_(out) {}
  void begin_mapping(const mapping::Mapping& m, int index, int count) override;
  void begin_dimension(mapping::Dim dim, int groups, int group_size, const std::string& skipped) override;
  void point(const results::PointRecord& point) override;
  void point_skipped(const results::Failure& failure) override;
  void end_run(bool complete) override;

 private:
  std::ostream& out_;
  std::int64_t wrong_total_ = 0;
  int points_ = 0;
};

// One line on stderr, rewritten in place, with the ETA: only when stderr is a terminal.
class ProgressReporter final : public Reporter {
 public:
  explicit ProgressReporter(int total_points);
  void begin_mapping(const mapping::Mapping& m, int index, int count) override;
  void point(const results::PointRecord& point) override;
  void end_run(bool complete) override;

 private:
  int total_, done_ = 0;
  std::string mapping_;
  std::chrono::steady_clock::time_point start_;
  bool active_;
};

// Appends every point to the results file as it completes. The mutex keeps the watchdog's
// failure record from interleaving with an append.
class ResultsFileReporter final : public Reporter {
 public:
  explicit ResultsFileReporter(results::ResultsWriter& writer) : writer_(writer) {}
  void point(const results::PointRecord& point) override;
  void point_skipped(const results::Failure& failure) override { record_failure(failure); }
  void record_failure(const results::Failure& failure);
  // Waits until no append is in flight and keeps it so: the process is about to be killed.
  void hold();

 private:
  results::ResultsWriter& writer_;
  std::mutex mutex_;
};

class Reporters final : public Reporter {
 public:
  void add(Reporter* r) { all_.push_back(r); }
  void begin_mapping(const mapping::Mapping& m, int index, int count) override;
  void begin_dimension(mapping::Dim dim, int groups, int group_size, const std::string& skipped) override;
  void point(const results::PointRecord& point) override;
  void point_skipped(const results::Failure& failure) override;
  void end_run(bool complete) override;

 private:
  std::vector<Reporter*> all_;
};

}  // namespace meshbench::bench
