// GPU-machine check of what the stand-in NVML cannot show: the driver's NVML read through the
// sampler, and the host<->GPU copies (tests/gpu/check.sh runs it). Prints what it saw; exits 1
// with FAILED on anything missing.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "bench/sensors/host_copies.hpp"
#include "common/nvml/gpu_sampler.hpp"
#include "common/nvml/nvml_library.hpp"

namespace {

int failures = 0;
void expect(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok    " : "FAILED", what.c_str());
  if (!ok) ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace meshbench;
  const int numa = argc > 1 ? std::atoi(argv[1]) : 0;  // GPU 0's NUMA node (check.sh asks hwloc)
  const nvml::NvmlLibrary nvml;
  expect(nvml.available(), "NVML loads and initialises (" + nvml.note() + ")");
  if (!nvml.available()) return 1;
  expect(nvml.device_count() >= 1, std::to_string(nvml.device_count()) + " GPU(s) listed");
  const auto r = nvml.read(0);
  expect(!r.bus_id.empty() && nvml.index_of_bus_id(r.bus_id) == 0, "GPU 0 at " + r.bus_id + " found again by its address");
  expect(r.temperature_c.has_value() && *r.temperature_c > 0, "temperature read");
  expect(r.power_w.has_value() && *r.power_w > 0, "power read");
  expect(r.sm_clock_mhz.has_value() && *r.sm_clock_mhz > 0, "SM clock read");
  expect(r.pcie_replays.has_value(), "PCIe replay counter read");
  std::printf("GPU 0: %.0f C, %.0f W, SM %.0f MHz, reasons 0x%llx, replays %llu, ECC uncorrected %s\n", r.temperature_c.value_or(NAN),
              r.power_w.value_or(NAN), r.sm_clock_mhz.value_or(NAN), static_cast<unsigned long long>(r.reasons),
              static_cast<unsigned long long>(r.pcie_replays.value_or(0)),
              r.ecc_uncorrected ? std::to_string(*r.ecc_uncorrected).c_str() : "not supported");

  // One second at 50 ms: the thread's readings land inside the window (at least 10 of about 21).
  nvml::GpuSampler sampler(nvml, {0}, 0.05);
  sampler.open_window(0);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const auto w = sampler.close_window().front();
  expect(w.readings >= 10, std::to_string(w.readings) + " readings in a 1 s window at 50 ms");
  expect(w.temperature_max_c.has_value() && w.pcie_replays.has_value(), "the window summarises temperature and replays");

  bench::HostCopyRequest request;
  request.host = "this";
  request.bus_id = r.bus_id;
  request.gpu_numa = numa;
  try {
    for (const auto& c : bench::measure_host_copies(request)) {
      std::printf("copy %s from NUMA %d (%s) %llu B: median %.1f GB/s, best %.1f GB/s\n", c.direction.c_str(), c.numa_node,
                  c.locality.c_str(), static_cast<unsigned long long>(c.bytes), c.gbps_median, c.gbps_max);
      if (c.bytes >= (16U << 20)) expect(c.gbps_median > 1, "pinned copies above 1 GB/s at " + std::to_string(c.bytes >> 20) + " MiB");
    }
  } catch (const std::exception& e) {
    expect(false, std::string("host copies: ") + e.what());
  }
  std::printf("%s\n", failures == 0 ? "GPU health and host copies: OK" : "GPU health and host copies: FAILED");
  return failures == 0 ? 0 : 1;
}
