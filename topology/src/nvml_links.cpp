#include "topology/src/nvml_links.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <map>
#include <string>

namespace meshbench::topology {

namespace {

// The few NVML declarations used, as nvml.h has them (layouts must match the driver's).
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kNvmlFeatureEnabled = 1;
constexpr unsigned kNvlinkMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS; NVML stops earlier with an error
struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

struct Nvml {
  void* lib = nullptr;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*count)(unsigned*) = nullptr;
  nvmlReturn_t (*handle)(unsigned, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*pci_info)(nvmlDevice_t, nvmlPciInfo_t*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned) = nullptr;
  nvmlReturn_t (*capability)(nvmlDevice_t, int*, int*) = nullptr;
  nvmlReturn_t (*link_state)(nvmlDevice_t, unsigned, int*) = nullptr;
  nvmlReturn_t (*remote_pci)(nvmlDevice_t, unsigned, nvmlPciInfo_t*) = nullptr;

  template <typename F>
  bool bind(F& fn, const char* symbol) {
    fn = reinterpret_cast<F>(dlsym(lib, symbol));
    return fn != nullptr;
  }
  bool load() {
    lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return false;
    return bind(init, "nvmlInit_v2") && bind(shutdown, "nvmlShutdown") && bind(count, "nvmlDeviceGetCount_v2") &&
           bind(handle, "nvmlDeviceGetHandleByIndex_v2") && bind(pci_info, "nvmlDeviceGetPciInfo_v3") && bind(name, "nvmlDeviceGetName") &&
           bind(capability, "nvmlDeviceGetCudaComputeCapability") && bind(link_state, "nvmlDeviceGetNvLinkState") &&
           bind(remote_pci, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  }
  ~Nvml() {
    if (lib != nullptr) dlclose(lib);
  }
};

std::string busid(const nvmlPciInfo_t& p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.0", p.domain, p.bus, p.device);
  return buf;
}

}  // namespace

bool add_nvml_facts(Machine& m) {
  Nvml nvml;
  if (!nvml.load() || nvml.init() != kNvmlSuccess) return false;
  std::map<std::string, int> gpu_by_bus;
  for (int i : m.indices(PciKind::gpu)) gpu_by_bus[m.pci[static_cast<std::size_t>(i)].busid] = i;
  const bool keep_links = !m.nvlinks.empty();  // NVLinks the source already gave win
  unsigned n = 0;
  if (nvml.count(&n) == kNvmlSuccess) {
    for (unsigned g = 0; g < n; ++g) {
      nvmlDevice_t dev = nullptr;
      nvmlPciInfo_t pci{};
      if (nvml.handle(g, &dev) != kNvmlSuccess || nvml.pci_info(dev, &pci) != kNvmlSuccess) continue;
      const auto found = gpu_by_bus.find(busid(pci));
      if (found == gpu_by_bus.end()) continue;
      PciDevice& gpu = m.pci[static_cast<std::size_t>(found->second)];
      gpu.gpu_index = static_cast<int>(g);
      char model[96] = {};
      if (nvml.name(dev, model, sizeof model) == kNvmlSuccess) gpu.model = model;
      int major = 0, minor = 0;
      if (nvml.capability(dev, &major, &minor) == kNvmlSuccess) gpu.sm = major * 10 + minor;
      if (keep_links) continue;
      std::map<int, int> links;  // peer (-1 = NVSwitch fabric) -> count
      for (unsigned l = 0; l < kNvlinkMaxLinks; ++l) {
        int active = 0;
        if (nvml.link_state(dev, l, &active) != kNvmlSuccess) break;
        nvmlPciInfo_t remote{};
        if (active != kNvmlFeatureEnabled || nvml.remote_pci(dev, l, &remote) != kNvmlSuccess) continue;
        const auto peer = gpu_by_bus.find(busid(remote));
        ++links[peer == gpu_by_bus.end() ? -1 : peer->second];  // not a GPU: NCCL's NVSwitch rule
      }
      for (const auto& [peer, count] : links) m.nvlinks.push_back({found->second, peer, count});
    }
  }
  nvml.shutdown();
  return true;
}

}  // namespace meshbench::topology
