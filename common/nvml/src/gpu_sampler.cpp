#include "common/nvml/gpu_sampler.hpp"

#include <chrono>

#include "common/nvml/src/steady_seconds.hpp"

namespace meshbench::nvml {

GpuSampler::GpuSampler(const NvmlLibrary& nvml, std::vector<int> gpus, double interval_s)
    : nvml_(nvml), gpus_(std::move(gpus)), interval_s_(interval_s), closing_(gpus_.size()) {
  if (interval_s_ > 0) thread_ = std::thread([this] { loop(); });
}

GpuSampler::~GpuSampler() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GpuSampler::read_all_into(std::vector<GpuReading>& out) const {
  for (int g : gpus_) out.push_back(nvml_.read(g));
}

// Start time first, then the point published, then the first reading: a stand-in library's
// reading for this point can only be taken after the window opened.
void GpuSampler::open_window(int point) {
  std::vector<GpuReading> first;
  {
    const std::lock_guard lock(mutex_);
    readings_.clear();
    start_s_ = steady_seconds();
    open_ = true;
    ++generation_;
  }
  nvml_.publish_point(point);
  read_all_into(first);
  {
    const std::lock_guard lock(mutex_);
    readings_.insert(readings_.end(), first.begin(), first.end());
  }
  wake_.notify_all();
}

// The last reading, then the point withdrawn, then the end time (the mirror of open_window).
std::vector<GpuWindow> GpuSampler::close_window() {
  std::vector<GpuReading> last;
  read_all_into(last);
  nvml_.publish_point(-1);
  std::vector<GpuReading> readings;
  double start = 0;
  {
    const std::lock_guard lock(mutex_);
    readings_.insert(readings_.end(), last.begin(), last.end());
    open_ = false;
    readings.swap(readings_);
    start = start_s_;
  }
  const double end = steady_seconds();
  std::vector<GpuWindow> out;
  for (std::size_t k = 0; k < gpus_.size(); ++k) {
    std::vector<GpuReading> mine;
    for (const auto& r : readings) {
      if (r.index == gpus_[k]) mine.push_back(r);
    }
    out.push_back(summarize_window(mine, start, end, closing_[k] ? &*closing_[k] : nullptr));
    closing_[k] = last[k];
  }
  return out;
}

void GpuSampler::loop() {
  std::unique_lock lock(mutex_);
  const auto interval = std::chrono::duration<double>(interval_s_);
  while (!stop_) {
    wake_.wait(lock, [this] { return stop_ || open_; });
    if (stop_) break;
    // Waits one interval, or less when the window closes or the sampler stops.
    const unsigned generation = generation_;
    if (wake_.wait_for(lock, interval, [&] { return stop_ || !open_ || generation_ != generation; })) continue;
    lock.unlock();
    std::vector<GpuReading> now;
    read_all_into(now);
    lock.lock();
    if (open_ && generation_ == generation) readings_.insert(readings_.end(), now.begin(), now.end());
  }
}

}  // namespace meshbench::nvml
