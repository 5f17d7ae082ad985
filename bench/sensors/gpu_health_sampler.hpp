#pragma once
// GPU health around every measured visit: each rank samples its own slot's GPU through NVML
// (common/nvml) from just before a visit's first op to just after its last, and world rank 0
// stores one /gpu_health row per rank with a GPU. NVML missing: nothing is sampled or stored.
#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "bench/sensors/point_sampler.hpp"
#include "common/nvml/gpu_window.hpp"
#include "results/gpu_records.hpp"

namespace meshbench::nvml {
class NvmlLibrary;
class GpuSampler;
}  // namespace meshbench::nvml

namespace meshbench::bench {

// Where a rank's GPU is: its slot's PCI address, else (a CPU slot, or a topology from a file)
// its slot's index on the node.
struct GpuOfRank {
  std::string bus_id;
  int local_index = 0;
};

// NVML's index of the rank's GPU: the one at the slot's address, else the one numbered like the
// slot when the slot has no address; -1 when NVML lists neither.
int nvml_index_of(const nvml::NvmlLibrary& nvml, const GpuOfRank& gpu);

// One /gpu_health row from a GPU's window; NaN for a figure NVML did not give, -1 for a counter.
results::GpuHealthRow gpu_health_row(const SampledVisit& visit, const nvml::GpuWindow& window, const std::string& host, int rank, int gpu,
                                     const std::string& bus_id);

class GpuHealthSampler final : public PointSampler {
 public:
  // Collective over `world`. `interval_s` between the readings inside a visit (0: only its first
  // and last); `hosts` per world rank, used on rank 0.
  GpuHealthSampler(MPI_Comm world, double interval_s, const GpuOfRank& gpu, std::vector<std::string> hosts);
  ~GpuHealthSampler() override;
  // How many ranks found their GPU in NVML, and (rank 0) why the first that did not, did not.
  int ranks_sampling() const { return ranks_sampling_; }
  const std::string& note() const { return note_; }

  void before_point(const SampledVisit& visit) override;
  void after_point(const SampledVisit& visit, const VisitWork& work, results::PointReadings& readings) override;

 private:
  MPI_Comm world_;
  int rank_ = 0, size_ = 1;
  std::vector<std::string> hosts_;
  std::unique_ptr<nvml::NvmlLibrary> nvml_;
  std::unique_ptr<nvml::GpuSampler> sampler_;
  int gpu_ = -1;
  std::string bus_id_;
  int visits_ = 0;  // the points published to NVML's stand-in in the tests: every rank counts alike
  int ranks_sampling_ = 0;
  std::string note_;
};

}  // namespace meshbench::bench
