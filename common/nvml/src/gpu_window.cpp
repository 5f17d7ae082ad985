#include "common/nvml/gpu_window.hpp"

#include <algorithm>

namespace meshbench::nvml {

namespace {

void keep_max(std::optional<double>& into, const std::optional<double>& v) {
  if (v && (!into || *v > *into)) into = v;
}
void keep_min(std::optional<double>& into, const std::optional<double>& v) {
  if (v && (!into || *v < *into)) into = v;
}

std::optional<std::uint64_t> growth(const std::optional<std::uint64_t>& from, const std::optional<std::uint64_t>& to) {
  if (!to) return std::nullopt;
  if (!from) return std::uint64_t{0};
  return *to >= *from ? *to - *from : *to;
}

}  // namespace

GpuWindow summarize_window(const std::vector<GpuReading>& readings, double start_s, double end_s, const GpuReading* before) {
  GpuWindow w;
  const GpuReading* first = nullptr;
  const GpuReading* last = nullptr;
  double utilization_sum = 0;
  int utilization_count = 0;
  for (const auto& r : readings) {
    if (r.from_s < start_s || r.to_s > end_s) continue;
    ++w.readings;
    if (first == nullptr || r.from_s < first->from_s) first = &r;
    if (last == nullptr || r.to_s >= last->to_s) last = &r;
    keep_max(w.temperature_max_c, r.temperature_c);
    keep_max(w.power_max_w, r.power_w);
    keep_min(w.sm_clock_min_mhz, r.sm_clock_mhz);
    keep_max(w.sm_clock_max_mhz, r.sm_clock_mhz);
    if (r.gpu_utilization) {
      utilization_sum += *r.gpu_utilization;
      ++utilization_count;
    }
    const std::uint64_t throttling = r.reasons & kThrottlingReasons;
    w.throttle |= throttling;
    if (throttling != 0) ++w.throttled_readings;
  }
  if (utilization_count > 0) w.utilization_mean = utilization_sum / utilization_count;
  if (last == nullptr) return w;
  const GpuReading& from = before != nullptr ? *before : *first;
  w.ecc_corrected = growth(from.ecc_corrected, last->ecc_corrected);
  w.ecc_uncorrected = growth(from.ecc_uncorrected, last->ecc_uncorrected);
  w.pcie_replays = growth(from.pcie_replays, last->pcie_replays);
  return w;
}

}  // namespace meshbench::nvml
