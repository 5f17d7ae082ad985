#pragma once
#include "topology/machine.hpp"

namespace meshbench::topology {

// GPU models, compute capabilities and NVLinks from NVML, loaded at run time so meshbench
// builds and runs where no NVIDIA driver is installed (Debian's hwloc has no NVML plugin).
// Returns false, changing nothing, when libnvidia-ml cannot be loaded or initialised.
bool add_nvml_facts(Machine& machine);

}  // namespace meshbench::topology
