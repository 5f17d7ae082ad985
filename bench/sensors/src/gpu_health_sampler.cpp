#include "bench/sensors/gpu_health_sampler.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/mpi/strings.hpp"
#include "common/nvml/gpu_sampler.hpp"
#include "common/nvml/nvml_library.hpp"

namespace meshbench::bench {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double or_nan(const std::optional<double>& v) { return v ? *v : kNaN; }
std::int64_t or_minus_one(const std::optional<std::uint64_t>& v) { return v ? static_cast<std::int64_t>(*v) : -1; }

// One rank's window as it travels to rank 0: fixed size, so one MPI_Gather carries every rank's.
struct WireWindow {
  std::int32_t gpu = -1;  // -1: this rank samples nothing
  std::int32_t readings = 0, throttled_readings = 0;
  std::array<double, 5> figures{};  // temperature, power, SM clock min and max, utilisation
  std::uint64_t throttle = 0;
  std::array<std::int64_t, 3> counters{};  // ECC corrected, uncorrected, PCIe replays
  std::array<char, 24> bus_id{};
};

WireWindow to_wire(int gpu, const std::string& bus_id, const nvml::GpuWindow& w) {
  WireWindow out;
  out.gpu = gpu;
  out.readings = w.readings;
  out.throttled_readings = w.throttled_readings;
  out.figures = {or_nan(w.temperature_max_c), or_nan(w.power_max_w), or_nan(w.sm_clock_min_mhz), or_nan(w.sm_clock_max_mhz),
                 or_nan(w.utilization_mean)};
  out.throttle = w.throttle;
  out.counters = {or_minus_one(w.ecc_corrected), or_minus_one(w.ecc_uncorrected), or_minus_one(w.pcie_replays)};
  std::strncpy(out.bus_id.data(), bus_id.c_str(), out.bus_id.size() - 1);
  return out;
}

nvml::GpuWindow from_wire(const WireWindow& in) {
  nvml::GpuWindow w;
  w.readings = in.readings;
  w.throttled_readings = in.throttled_readings;
  const auto figure = [](double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); };
  w.temperature_max_c = figure(in.figures[0]);
  w.power_max_w = figure(in.figures[1]);
  w.sm_clock_min_mhz = figure(in.figures[2]);
  w.sm_clock_max_mhz = figure(in.figures[3]);
  w.utilization_mean = figure(in.figures[4]);
  w.throttle = in.throttle;
  const auto counter = [](std::int64_t v) { return v < 0 ? std::nullopt : std::optional<std::uint64_t>(static_cast<std::uint64_t>(v)); };
  w.ecc_corrected = counter(in.counters[0]);
  w.ecc_uncorrected = counter(in.counters[1]);
  w.pcie_replays = counter(in.counters[2]);
  return w;
}

}  // namespace

int nvml_index_of(const nvml::NvmlLibrary& nvml, const GpuOfRank& gpu) {
  if (!gpu.bus_id.empty()) return nvml.index_of_bus_id(gpu.bus_id);
  return gpu.local_index >= 0 && gpu.local_index < nvml.device_count() ? gpu.local_index : -1;
}

results::GpuHealthRow gpu_health_row(const SampledVisit& visit, const nvml::GpuWindow& w, const std::string& host, int rank, int gpu,
                                     const std::string& bus_id) {
  results::GpuHealthRow row;
  row.point = visit.key;
  row.point.layout.clear();  // a row's layout is its mapping's (point_key.hpp)
  row.round = visit.round;
  row.attempt = visit.attempt;
  row.host = host;
  row.rank = rank;
  row.gpu = gpu;
  row.bus_id = bus_id;
  row.readings = w.readings;
  row.temperature_max_c = or_nan(w.temperature_max_c);
  row.power_max_w = or_nan(w.power_max_w);
  row.sm_clock_min_mhz = or_nan(w.sm_clock_min_mhz);
  row.sm_clock_max_mhz = or_nan(w.sm_clock_max_mhz);
  row.utilization_mean = or_nan(w.utilization_mean);
  row.throttle = nvml::throttle_names(w.throttle);
  row.throttle_mask = w.throttle;
  row.throttled_readings = w.throttled_readings;
  row.ecc_corrected = or_minus_one(w.ecc_corrected);
  row.ecc_uncorrected = or_minus_one(w.ecc_uncorrected);
  row.pcie_replays = or_minus_one(w.pcie_replays);
  return row;
}

GpuHealthSampler::GpuHealthSampler(MPI_Comm world, double interval_s, const GpuOfRank& gpu, std::vector<std::string> hosts)
    : world_(world), hosts_(std::move(hosts)), nvml_(std::make_unique<nvml::NvmlLibrary>()) {
  MPI_Comm_rank(world_, &rank_);
  MPI_Comm_size(world_, &size_);
  std::string why;
  if (!nvml_->available()) {
    why = nvml_->note();
  } else if (gpu_ = nvml_index_of(*nvml_, gpu); gpu_ < 0) {
    why = "NVML does not list the slot's GPU (" + (gpu.bus_id.empty() ? "index " + std::to_string(gpu.local_index) : gpu.bus_id) + ")";
  } else {
    bus_id_ = nvml_->read(gpu_).bus_id;
    sampler_ = std::make_unique<nvml::GpuSampler>(*nvml_, std::vector<int>{gpu_}, interval_s);
  }
  int mine = sampler_ ? 1 : 0;
  MPI_Allreduce(&mine, &ranks_sampling_, 1, MPI_INT, MPI_SUM, world_);
  const auto notes = mpi::gather_strings(why, world_);
  for (const auto& n : notes) {
    if (note_.empty() && !n.empty()) note_ = n;
  }
}

GpuHealthSampler::~GpuHealthSampler() = default;

void GpuHealthSampler::before_point(const SampledVisit&) {
  if (sampler_) sampler_->open_window(visits_);
  ++visits_;
}

void GpuHealthSampler::after_point(const SampledVisit& visit, const VisitWork& work, results::PointReadings& readings) {
  if (ranks_sampling_ == 0) return;
  WireWindow mine;
  if (sampler_) mine = to_wire(gpu_, bus_id_, sampler_->close_window().front());
  std::vector<WireWindow> all(rank_ == 0 ? static_cast<std::size_t>(size_) : 0);
  MPI_Gather(&mine, static_cast<int>(sizeof mine), MPI_BYTE, all.data(), static_cast<int>(sizeof mine), MPI_BYTE, 0, world_);
  if (rank_ != 0 || !work.measured) return;
  for (int r = 0; r < size_; ++r) {
    const auto& w = all[static_cast<std::size_t>(r)];
    if (w.gpu < 0) continue;
    const std::string host = r < static_cast<int>(hosts_.size()) ? hosts_[static_cast<std::size_t>(r)] : "";
    readings.gpu_health.push_back(gpu_health_row(visit, from_wire(w), host, r, w.gpu, w.bus_id.data()));
  }
}

}  // namespace meshbench::bench
