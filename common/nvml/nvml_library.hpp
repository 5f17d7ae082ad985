#pragma once
#include <string>
#include <vector>

#include "common/nvml/gpu_reading.hpp"

namespace meshbench::nvml {

// The name of the environment variable that points meshbench at another NVML library file
// (the tests' stand-in, or a driver installed outside the loader's path).
inline constexpr const char* kLibraryVariable = "MESHBENCH_NVML_LIBRARY";

// NVML opened with dlopen and initialised: the few entry points meshbench reads, declared here
// so that building needs neither NVML's header nor the driver. Not available (with a note
// saying why) where the library is missing or nvmlInit fails; every reading is then empty.
class NvmlLibrary {
 public:
  // `path` empty: $MESHBENCH_NVML_LIBRARY when set, else libnvidia-ml.so.1 from the loader's path.
  explicit NvmlLibrary(const std::string& path = "");
  ~NvmlLibrary();
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  bool available() const { return initialised_; }
  const std::string& note() const { return note_; }
  int device_count() const { return static_cast<int>(devices_.size()); }
  // NVML's index of the GPU at PCI address `bus_id` (any spelling: "0000:19:00.0",
  // "00000000:19:00.0"); -1 when NVML does not list it.
  int index_of_bus_id(const std::string& bus_id) const;
  // One reading of GPU `index`; safe to call from several threads (NVML is).
  GpuReading read(int index) const;
  GpuFacts facts(int index) const;
  // Test hook: tells a stand-in library which point is measured now (-1: none), so that its
  // readings can follow the run's points exactly. NVML itself has no such entry point.
  void publish_point(int point) const;

  struct Api;  // the resolved entry points (nvml_library.cpp)

 private:
  void* device(int index) const;  // nullptr where NVML gave no handle
  void* handle_ = nullptr;
  bool initialised_ = false;
  std::string note_;
  Api* api_ = nullptr;
  std::vector<void*> devices_;  // nvmlDevice_t per NVML index
  std::vector<std::string> bus_ids_;
};

// "0000:19:00.0" from "00000000:19:00.0" or "0000:19:00.0" in any case: the spelling compared.
std::string normal_bus_id(const std::string& bus_id);

}  // namespace meshbench::nvml
