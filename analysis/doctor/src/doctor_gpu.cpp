#include <array>
#include <cstdio>
#include <memory>
#include <sstream>

#include "analysis/doctor/doctor_gpu.hpp"
#include "common/nvml/nvml_library.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

std::optional<double> number(const std::string& field) {
  try {
    std::size_t used = 0;
    const double v = std::stod(field, &used);
    return used == 0 ? std::nullopt : std::optional<double>(v);
  } catch (const std::exception&) {
    return std::nullopt;  // "[N/A]", "[Not Supported]"
  }
}

// One reading per GPU with run's sampler library (common/nvml), so doctor and run read alike.
GpuReading read_nvml() {
  GpuReading found;
  const nvml::NvmlLibrary nvml;
  if (!nvml.available()) {
    found.note = nvml.note();
    return found;
  }
  for (int i = 0; i < nvml.device_count(); ++i) {
    const auto r = nvml.read(i);
    const auto f = nvml.facts(i);
    GpuHealth g;
    g.index = i;
    g.name = f.name;
    g.bus_id = r.bus_id;
    g.temperature_c = r.temperature_c;
    g.power_w = r.power_w;
    g.power_limit_w = f.power_limit_w;
    if (r.ecc_uncorrected) g.ecc_uncorrected = static_cast<long long>(*r.ecc_uncorrected);
    g.sm_clock_mhz = r.sm_clock_mhz;
    g.max_sm_clock_mhz = f.max_sm_clock_mhz;
    g.throttle = nvml::throttle_names(r.reasons);
    if (r.pcie_replays) g.pcie_replays = static_cast<long long>(*r.pcie_replays);
    found.gpus.push_back(std::move(g));
  }
  found.source = "nvml";
  return found;
}

GpuReading read_nvidia_smi(const std::string& nvml_note) {
  GpuReading found;
  const std::string cmd = "nvidia-smi --query-gpu=" + std::string(kNvidiaSmiQuery) + " --format=csv,noheader,nounits 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  if (pipe) {
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe.get()) != nullptr) out += buf.data();
  }
  const int status = pipe ? pclose(pipe.release()) : -1;
  if (status != 0 || out.empty()) {
    found.note = nvml_note + " and nvidia-smi is not available or failed";
    return found;
  }
  found.gpus = parse_nvidia_smi_csv(out);
  found.source = "nvidia-smi";
  return found;
}

}  // namespace

std::vector<GpuHealth> parse_nvidia_smi_csv(std::string_view text) {
  std::vector<GpuHealth> gpus;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    std::string cell;
    while (std::getline(fields, cell, ',')) f.emplace_back(trim(cell));
    if (f.size() < 9) continue;
    const auto index = number(f[0]);
    if (!index) continue;  // a header line or an error message
    GpuHealth g;
    g.index = static_cast<int>(*index);
    g.name = f[1];
    g.bus_id = f[2];
    g.temperature_c = number(f[3]);
    g.power_w = number(f[4]);
    g.power_limit_w = number(f[5]);
    if (auto ecc = number(f[6])) g.ecc_uncorrected = static_cast<long long>(*ecc);
    g.sm_clock_mhz = number(f[7]);
    g.max_sm_clock_mhz = number(f[8]);
    gpus.push_back(std::move(g));
  }
  return gpus;
}

GpuReading read_gpu_health() {
  GpuReading nvml = read_nvml();
  if (!nvml.source.empty()) return nvml;
  return read_nvidia_smi(nvml.note);
}

}  // namespace meshbench::analysis
