#pragma once
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/nvml/gpu_window.hpp"
#include "common/nvml/nvml_library.hpp"

namespace meshbench::nvml {

// Reads a few GPUs while a window (one measured point) is open: once when it opens, every
// `interval_s` on its own thread, and once when it closes, so every window has at least two
// readings however short it is. Between windows it reads nothing.
class GpuSampler {
 public:
  GpuSampler(const NvmlLibrary& nvml, std::vector<int> gpus, double interval_s);
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // `point` is passed to NvmlLibrary::publish_point for the window's length.
  void open_window(int point);
  // One summary per GPU, in the order the GPUs were given.
  std::vector<GpuWindow> close_window();
  const std::vector<int>& gpus() const { return gpus_; }

 private:
  void loop();
  void read_all_into(std::vector<GpuReading>& out) const;

  const NvmlLibrary& nvml_;
  std::vector<int> gpus_;
  double interval_s_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool open_ = false, stop_ = false;
  unsigned generation_ = 0;  // counts windows: a reading started in one window never lands in the next
  double start_s_ = 0;
  std::vector<GpuReading> readings_;
  std::vector<std::optional<GpuReading>> closing_;  // per GPU: the last reading of its previous window
  std::thread thread_;
};

}  // namespace meshbench::nvml
