#include "common/nvml/nvml_library.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <type_traits>

#include "common/nvml/src/steady_seconds.hpp"

namespace meshbench::nvml {

namespace {

// NVML's C types as far as meshbench uses them (nvml.h); NVML_SUCCESS is 0.
using Device = void*;
constexpr int kSuccess = 0;
constexpr int kTemperatureGpu = 0;    // NVML_TEMPERATURE_GPU
constexpr int kClockSm = 1;           // NVML_CLOCK_SM
constexpr int kErrorCorrected = 0;    // NVML_MEMORY_ERROR_TYPE_CORRECTED
constexpr int kErrorUncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kVolatileCounter = 0;   // NVML_VOLATILE_ECC
struct PciInfo {                      // nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_sub_system_id;
  char bus_id[32];
};
struct Utilization {  // nvmlUtilization_t
  unsigned gpu, memory;
};

}  // namespace

struct NvmlLibrary::Api {
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*count)(unsigned*) = nullptr;
  int (*by_index)(unsigned, Device*) = nullptr;
  int (*by_bus_id)(const char*, Device*) = nullptr;
  int (*pci_info)(Device, PciInfo*) = nullptr;
  int (*temperature)(Device, int, unsigned*) = nullptr;
  int (*power)(Device, unsigned*) = nullptr;
  int (*clock)(Device, int, unsigned*) = nullptr;
  int (*reasons)(Device, unsigned long long*) = nullptr;
  int (*ecc)(Device, int, int, unsigned long long*) = nullptr;
  int (*replays)(Device, unsigned*) = nullptr;
  int (*utilization)(Device, Utilization*) = nullptr;
  int (*name)(Device, char*, unsigned) = nullptr;
  int (*power_limit)(Device, unsigned*) = nullptr;
  int (*max_clock)(Device, int, unsigned*) = nullptr;
  void (*test_point)(int) = nullptr;
};

std::string normal_bus_id(const std::string& bus_id) {
  std::string p;
  for (char c : bus_id) {
    if (c != ' ') p += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  const auto colon = p.find(':');
  if (colon == std::string::npos || std::count(p.begin(), p.end(), ':') != 2) return p;
  const std::string domain = p.substr(0, colon);
  char* end = nullptr;
  const unsigned long number = std::strtoul(domain.c_str(), &end, 16);
  if (domain.empty() || *end != '\0') return p;
  std::array<char, 20> text{};
  std::snprintf(text.data(), text.size(), "%04lx", number);
  return text.data() + p.substr(colon);
}

NvmlLibrary::NvmlLibrary(const std::string& path) : api_(new Api) {
  std::string file = path;
  if (file.empty()) {
    const char* env = std::getenv(kLibraryVariable);
    file = env != nullptr && *env != '\0' ? env : "libnvidia-ml.so.1";
  }
  handle_ = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    note_ = file + " not found (no NVIDIA driver here)";
    return;
  }
  const auto sym = [this](const char* name) { return dlsym(handle_, name); };
  const auto bind = [&](auto& fn, const char* name) { fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(sym(name)); };
  bind(api_->init, "nvmlInit_v2");
  bind(api_->shutdown, "nvmlShutdown");
  bind(api_->count, "nvmlDeviceGetCount_v2");
  bind(api_->by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(api_->by_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  bind(api_->pci_info, "nvmlDeviceGetPciInfo_v3");
  bind(api_->temperature, "nvmlDeviceGetTemperature");
  bind(api_->power, "nvmlDeviceGetPowerUsage");
  bind(api_->clock, "nvmlDeviceGetClockInfo");
  // The new name first (drivers from 535 on); older drivers have only the throttle spelling.
  bind(api_->reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (api_->reasons == nullptr) bind(api_->reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  bind(api_->ecc, "nvmlDeviceGetTotalEccErrors");
  bind(api_->replays, "nvmlDeviceGetPcieReplayCounter");
  bind(api_->utilization, "nvmlDeviceGetUtilizationRates");
  bind(api_->name, "nvmlDeviceGetName");
  bind(api_->power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  bind(api_->max_clock, "nvmlDeviceGetMaxClockInfo");
  bind(api_->test_point, "meshbench_test_point");
  if (api_->init == nullptr || api_->shutdown == nullptr || api_->count == nullptr || api_->by_index == nullptr) {
    note_ = file + " lacks nvmlInit_v2, nvmlDeviceGetCount_v2 or nvmlDeviceGetHandleByIndex_v2 (driver too old?)";
    return;
  }
  if (const int rc = api_->init(); rc != kSuccess) {
    note_ = "nvmlInit_v2 failed with NVML error " + std::to_string(rc) + " (driver not loaded?)";
    return;
  }
  initialised_ = true;
  unsigned count = 0;
  if (api_->count(&count) != kSuccess) count = 0;
  for (unsigned i = 0; i < count; ++i) {
    Device d = nullptr;
    if (api_->by_index(i, &d) != kSuccess) d = nullptr;
    PciInfo pci{};
    std::string bus;
    if (d != nullptr && api_->pci_info != nullptr && api_->pci_info(d, &pci) == kSuccess) bus = normal_bus_id(pci.bus_id);
    devices_.push_back(d);
    bus_ids_.push_back(bus);
  }
}

NvmlLibrary::~NvmlLibrary() {
  if (initialised_) api_->shutdown();
  if (handle_ != nullptr) dlclose(handle_);
  delete api_;
}

int NvmlLibrary::index_of_bus_id(const std::string& bus_id) const {
  const std::string want = normal_bus_id(bus_id);
  for (std::size_t i = 0; i < bus_ids_.size(); ++i) {
    if (!want.empty() && bus_ids_[i] == want) return static_cast<int>(i);
  }
  // nvmlDeviceGetPciInfo missing or spelled otherwise: ask NVML by the address itself.
  Device d = nullptr;
  if (!initialised_ || api_->by_bus_id == nullptr || api_->by_bus_id(bus_id.c_str(), &d) != kSuccess) return -1;
  const auto it = std::find(devices_.begin(), devices_.end(), d);
  return it == devices_.end() ? -1 : static_cast<int>(it - devices_.begin());
}

void* NvmlLibrary::device(int index) const {
  return initialised_ && index >= 0 && index < device_count() ? devices_[static_cast<std::size_t>(index)] : nullptr;
}

GpuReading NvmlLibrary::read(int index) const {
  GpuReading r;
  r.index = index;
  r.from_s = steady_seconds();
  Device d = device(index);
  if (d == nullptr) {
    r.to_s = steady_seconds();
    return r;
  }
  r.bus_id = bus_ids_[static_cast<std::size_t>(index)];
  unsigned v = 0;
  if (api_->temperature != nullptr && api_->temperature(d, kTemperatureGpu, &v) == kSuccess) r.temperature_c = v;
  if (api_->power != nullptr && api_->power(d, &v) == kSuccess) r.power_w = v / 1000.0;  // NVML reports mW
  if (api_->clock != nullptr && api_->clock(d, kClockSm, &v) == kSuccess) r.sm_clock_mhz = v;
  if (api_->replays != nullptr && api_->replays(d, &v) == kSuccess) r.pcie_replays = v;
  unsigned long long n = 0;
  if (api_->reasons != nullptr && api_->reasons(d, &n) == kSuccess) r.reasons = n;
  if (api_->ecc != nullptr && api_->ecc(d, kErrorCorrected, kVolatileCounter, &n) == kSuccess) r.ecc_corrected = n;
  if (api_->ecc != nullptr && api_->ecc(d, kErrorUncorrected, kVolatileCounter, &n) == kSuccess) r.ecc_uncorrected = n;
  Utilization u{};
  if (api_->utilization != nullptr && api_->utilization(d, &u) == kSuccess) r.gpu_utilization = u.gpu;
  r.to_s = steady_seconds();
  return r;
}

GpuFacts NvmlLibrary::facts(int index) const {
  GpuFacts f;
  Device d = device(index);
  if (d == nullptr) return f;
  std::array<char, 96> name{};
  if (api_->name != nullptr && api_->name(d, name.data(), static_cast<unsigned>(name.size())) == kSuccess) f.name = name.data();
  unsigned v = 0;
  if (api_->power_limit != nullptr && api_->power_limit(d, &v) == kSuccess) f.power_limit_w = v / 1000.0;
  if (api_->max_clock != nullptr && api_->max_clock(d, kClockSm, &v) == kSuccess) f.max_sm_clock_mhz = v;
  return f;
}

void NvmlLibrary::publish_point(int point) const {
  if (api_->test_point != nullptr) api_->test_point(point);
}

}  // namespace meshbench::nvml
