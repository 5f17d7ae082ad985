#include "analysis/doctor/doctor_checks.hpp"
#include "analysis/doctor/src/doctor_format.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

using detail::fixed;

namespace {

std::string describe(const GpuHealth& g) {
  std::string s = "gpu" + std::to_string(g.index) + (g.name.empty() ? "" : " " + g.name);
  if (g.temperature_c) s += " " + fixed(*g.temperature_c, 0) + "C";
  if (g.power_w) s += " " + fixed(*g.power_w, 0) + (g.power_limit_w ? "/" + fixed(*g.power_limit_w, 0) : "") + "W";
  if (g.ecc_uncorrected) s += " ecc-uncorrected " + std::to_string(*g.ecc_uncorrected);
  if (!g.throttle.empty()) s += " throttled " + g.throttle;
  if (g.pcie_replays && *g.pcie_replays > 0) s += " pcie-replays " + std::to_string(*g.pcie_replays);
  if (g.sm_clock_mhz) s += " sm " + fixed(*g.sm_clock_mhz, 0) + (g.max_sm_clock_mhz ? "/" + fixed(*g.max_sm_clock_mhz, 0) : "") + "MHz";
  return s;
}

}  // namespace

Check check_gpu_health(const std::vector<NodeFacts>& nodes) {
  Check c{"gpu.health", "GPU health (temperature, power, ECC, clocks, throttling, PCIe replays)", CheckStatus::pass, "", "", {}};
  std::vector<std::string> failures;
  std::vector<std::string> warnings;
  std::vector<std::string> unknown;
  int gpus = 0;
  double hottest = 0;
  int nodes_read = 0;
  for (const auto& n : nodes) {
    if (n.gpu.source.empty()) {
      c.details[n.host] = n.gpu.note;
      if (n.pci.gpus > 0) unknown.push_back(n.host + " (" + n.gpu.note + ")");
      continue;
    }
    ++nodes_read;
    std::vector<std::string> listed;
    for (const auto& g : n.gpu.gpus) {
      ++gpus;
      listed.push_back(describe(g));
      const std::string who = n.host + " gpu" + std::to_string(g.index);
      if (g.ecc_uncorrected && *g.ecc_uncorrected > 0) {
        failures.push_back(who + " has " + std::to_string(*g.ecc_uncorrected) + " uncorrected ECC errors");
      }
      // Throttling now makes every collective on the GPU slower; replays are PCIe link errors
      // the link recovered from, each costing a retransmission (a link going bad shows them first).
      if (!g.throttle.empty()) warnings.push_back(who + " throttled (" + g.throttle + ")");
      if (g.pcie_replays && *g.pcie_replays > 0) warnings.push_back(who + " " + std::to_string(*g.pcie_replays) + " PCIe replays");
      if (g.temperature_c) {
        hottest = std::max(hottest, *g.temperature_c);
        if (*g.temperature_c >= kGpuFailTemperatureC) {
          failures.push_back(who + " at " + fixed(*g.temperature_c, 0) + " C");
        } else if (*g.temperature_c >= kGpuWarnTemperatureC) {
          warnings.push_back(who + " at " + fixed(*g.temperature_c, 0) + " C");
        }
      }
    }
    if (static_cast<int>(n.gpu.gpus.size()) < n.pci.gpus) {
      failures.push_back(n.host + ": " + n.gpu.source + " sees " + std::to_string(n.gpu.gpus.size()) + " of " + std::to_string(n.pci.gpus) +
                         " GPUs on PCI");
    }
    c.details[n.host] = n.gpu.source + ": " + (listed.empty() ? "no GPU" : join(listed, "; "));
  }
  if (!failures.empty()) {
    c.status = CheckStatus::fail;
    c.reason = join(failures, "; ");
    c.fix =
        "drain and replace (or reset) the GPU's node: uncorrected ECC errors, overheating and GPUs missing "
        "from NVML make collectives fail or crawl";
    return c;
  }
  if (!warnings.empty() || !unknown.empty()) {
    c.status = CheckStatus::warn;
    std::vector<std::string> parts;
    if (!warnings.empty())
      parts.push_back("hot (>= " + fixed(kGpuWarnTemperatureC, 0) + " C), throttled or replaying: " + join(warnings, "; "));
    if (!unknown.empty()) parts.push_back("health unknown on " + join(unknown, "; "));
    c.reason = join(parts, " | ");
    c.fix =
        "check cooling and power capping on hot or throttled GPUs (nvidia-smi -q -d PERFORMANCE), reseat or replace a GPU whose PCIe "
        "replays grow; install the NVIDIA driver's NVML/nvidia-smi where missing";
    return c;
  }
  if (nodes_read > 0 && gpus == 0) {
    c.status = CheckStatus::skip;
    c.reason = "NVML/nvidia-smi present but they list no GPU";
    return c;
  }
  if (nodes_read == 0) {
    c.status = CheckStatus::skip;
    c.reason = "neither NVML (libnvidia-ml.so.1) nor nvidia-smi on " + (nodes.size() == 1 ? nodes.front().host : "any node") +
               ": no GPU health to read";
    return c;
  }
  c.reason = detail::plural(gpus, "GPU") + " on " + detail::plural(nodes_read, "node") + ": no uncorrected ECC error, hottest " +
             fixed(hottest, 0) + " C";
  return c;
}

}  // namespace meshbench::analysis
