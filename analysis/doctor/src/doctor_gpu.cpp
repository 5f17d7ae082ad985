#include <array>
#include <cstdio>
#include <memory>
#include <sstream>

#include "analysis/doctor/doctor_gpu.hpp"
#include "analysis/doctor/src/doctor_dynlib.hpp"

namespace meshbench::analysis {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

std::optional<double> number(const std::string& field) {
  try {
    std::size_t used = 0;
    const double v = std::stod(field, &used);
    return used == 0 ? std::nullopt : std::optional<double>(v);
  } catch (const std::exception&) {
    return std::nullopt;  // "[N/A]", "[Not Supported]"
  }
}

// NVML's C API as far as doctor uses it; declared here so no NVML header is needed to build.
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlTemperatureGpu = 0;
constexpr int kNvmlClockSm = 1;
constexpr int kNvmlMemoryErrorUncorrected = 1;
constexpr int kNvmlVolatileEcc = 0;
struct NvmlPciInfo {  // nvmlPciInfo_t (v3 layout)
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_sub_system_id;
  char bus_id[32];
};

GpuProbe probe_nvml() {
  GpuProbe probe;
  detail::DynLib lib({"libnvidia-ml.so.1"});
  if (!lib.loaded()) {
    probe.note = "libnvidia-ml.so.1 not found";
    return probe;
  }
  auto init = lib.symbol<int (*)()>("nvmlInit_v2");
  auto shutdown = lib.symbol<int (*)()>("nvmlShutdown");
  auto count_fn = lib.symbol<int (*)(unsigned*)>("nvmlDeviceGetCount_v2");
  auto handle_fn = lib.symbol<int (*)(unsigned, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex_v2");
  if (init == nullptr || shutdown == nullptr || count_fn == nullptr || handle_fn == nullptr) {
    probe.note = "libnvidia-ml.so.1 lacks nvmlInit_v2/nvmlDeviceGetCount_v2";
    return probe;
  }
  if (const int rc = init(); rc != kNvmlSuccess) {
    probe.note = "nvmlInit failed (" + std::to_string(rc) + "): driver not loaded?";
    return probe;
  }
  auto name_fn = lib.symbol<int (*)(nvmlDevice_t, char*, unsigned)>("nvmlDeviceGetName");
  auto pci_fn = lib.symbol<int (*)(nvmlDevice_t, NvmlPciInfo*)>("nvmlDeviceGetPciInfo_v3");
  auto temp_fn = lib.symbol<int (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetTemperature");
  auto power_fn = lib.symbol<int (*)(nvmlDevice_t, unsigned*)>("nvmlDeviceGetPowerUsage");
  auto limit_fn = lib.symbol<int (*)(nvmlDevice_t, unsigned*)>("nvmlDeviceGetEnforcedPowerLimit");
  auto ecc_fn = lib.symbol<int (*)(nvmlDevice_t, int, int, unsigned long long*)>("nvmlDeviceGetTotalEccErrors");
  auto clock_fn = lib.symbol<int (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetClockInfo");
  auto max_clock_fn = lib.symbol<int (*)(nvmlDevice_t, int, unsigned*)>("nvmlDeviceGetMaxClockInfo");
  unsigned count = 0;
  count_fn(&count);
  for (unsigned i = 0; i < count; ++i) {
    nvmlDevice_t dev = nullptr;
    if (handle_fn(i, &dev) != kNvmlSuccess) continue;
    GpuHealth g;
    g.index = static_cast<int>(i);
    std::array<char, 96> name{};
    if (name_fn != nullptr && name_fn(dev, name.data(), name.size()) == kNvmlSuccess) g.name = name.data();
    NvmlPciInfo pci{};
    if (pci_fn != nullptr && pci_fn(dev, &pci) == kNvmlSuccess) g.bus_id = pci.bus_id;
    unsigned v = 0;
    if (temp_fn != nullptr && temp_fn(dev, kNvmlTemperatureGpu, &v) == kNvmlSuccess) g.temperature_c = v;
    if (power_fn != nullptr && power_fn(dev, &v) == kNvmlSuccess) g.power_w = v / 1000.0;  // mW
    if (limit_fn != nullptr && limit_fn(dev, &v) == kNvmlSuccess) g.power_limit_w = v / 1000.0;
    unsigned long long ecc = 0;
    if (ecc_fn != nullptr && ecc_fn(dev, kNvmlMemoryErrorUncorrected, kNvmlVolatileEcc, &ecc) == kNvmlSuccess) {
      g.ecc_uncorrected = static_cast<long long>(ecc);
    }
    if (clock_fn != nullptr && clock_fn(dev, kNvmlClockSm, &v) == kNvmlSuccess) g.sm_clock_mhz = v;
    if (max_clock_fn != nullptr && max_clock_fn(dev, kNvmlClockSm, &v) == kNvmlSuccess) g.max_sm_clock_mhz = v;
    probe.gpus.push_back(std::move(g));
  }
  shutdown();
  probe.source = "nvml";
  return probe;
}

GpuProbe probe_nvidia_smi(const std::string& nvml_note) {
  GpuProbe probe;
  const std::string cmd = "nvidia-smi --query-gpu=" + std::string(kNvidiaSmiQuery) + " --format=csv,noheader,nounits 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  if (pipe) {
    std::array<char, 4096> buf{};
    while (std::fgets(buf.data(), static_cast<int>(buf.size()), pipe.get()) != nullptr) out += buf.data();
  }
  const int status = pipe ? pclose(pipe.release()) : -1;
  if (status != 0 || out.empty()) {
    probe.note = nvml_note + " and nvidia-smi is not available or failed";
    return probe;
  }
  probe.gpus = parse_nvidia_smi_csv(out);
  probe.source = "nvidia-smi";
  return probe;
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
    while (std::getline(fields, cell, ',')) f.push_back(trim(cell));
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

GpuProbe probe_gpu_health() {
  GpuProbe nvml = probe_nvml();
  if (!nvml.source.empty()) return nvml;
  return probe_nvidia_smi(nvml.note);
}

}  // namespace meshbench::analysis
