#pragma once
// The NICs' counters around every measured visit: one reading per host (its first rank, no
// MPI) just before the visit and one just after it; the growth of every NIC's counters goes
// to world rank 0 after the second reading, so the gathering is never counted.
#include <mpi.h>

#include <string>
#include <vector>

#include "bench/sensors/nic_counters.hpp"
#include "bench/sensors/point_sampler.hpp"

namespace meshbench::bench {

class NicCounterSampler final : public PointSampler {
 public:
  // Collective over `world`. Reads under `root` ("/" on a live host); with `test_roots`, the
  // host's readings take those roots in turn, the last repeated.
  NicCounterSampler(MPI_Comm world, std::string root, std::vector<std::string> test_roots);
  // Why this rank's host cannot read its counters (a wrong root), found when it was made; empty
  // when it can. The run stops on every rank when any host has one (any_input_error).
  const std::string& error() const { return error_; }
  ~NicCounterSampler() override;
  NicCounterSampler(const NicCounterSampler&) = delete;
  NicCounterSampler& operator=(const NicCounterSampler&) = delete;

  void before_point(const SampledVisit& visit) override;
  void after_point(const SampledVisit& visit, const VisitWork& work, results::PointReadings& readings) override;

 private:
  std::vector<NicReading> read();

  MPI_Comm world_ = MPI_COMM_NULL;
  MPI_Comm node_ = MPI_COMM_NULL;
  bool reader_ = false;  // this rank reads its host's counters (local rank 0)
  int rank_ = 0;
  std::string host_;
  std::string root_;
  std::vector<std::string> test_roots_;
  std::size_t readings_ = 0;
  std::vector<NicReading> before_;
  std::string error_;
};

}  // namespace meshbench::bench
