#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::analysis {

// One component's version as a reader found it. An empty `version` means the component is absent
// here and `source` says why ("libcuda.so.1 not found: no NVIDIA driver"); otherwise `source`
// says where the version came from (library path, file).
struct VersionInfo {
  std::string version;
  std::string source;
  bool present() const { return !version.empty(); }
};
using VersionMap = std::map<std::string, VersionInfo>;  // component -> info

// Components one process sees through what it loads (so they may differ between ranks with
// different LD_LIBRARY_PATH): nccl, cuda_driver, cuda_runtime, libfabric, mpi, hwloc.
// No CUDA library is linked: libcuda, libcudart and libnccl are dlopen'ed.
VersionMap read_process_versions();

// Components of the node: kernel, efa_installer, aws_ofi_nccl, nvidia_driver.
VersionMap read_node_versions();

// Pure helpers, unit-tested on canned input.
std::vector<int> parse_version(std::string_view text);         // "2.27.7+cuda12.9" -> {2, 27, 7}
int compare_versions(std::string_view a, std::string_view b);  // <0, 0, >0; missing parts count as 0
std::string decode_nccl_version(int code);                     // ncclGetVersion: 22707 -> "2.27.7", 2708 (pre-2.9) -> "2.7.8"
std::string decode_cuda_version(int code);                     // cuDriverGetVersion / cudaRuntimeGetVersion: 12090 -> "12.9"
// "NET/OFI Initializing aws-ofi-nccl 1.16.3" inside the plugin binary (what `strings` would show).
std::string parse_ofi_plugin_version(std::string_view binary);
// "# EFA installer version: 1.47.0" from /opt/amazon/efa_installed_packages.
std::string parse_efa_installer_version(std::string_view text);
// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  ..." from /proc/driver/nvidia/version.
std::string parse_nvidia_driver_version(std::string_view text);
// MPI_Get_library_version's text: "Open MPI v4.1.4, package: ..." -> "Open MPI v4.1.4".
std::string short_mpi_version(std::string_view library_version);

// Where aws-ofi-nccl may live: NCCL_NET_PLUGIN when it names a path, then the EFA installer's
// directories (the plugin moved from lib/<arch>-linux-gnu/ to lib/ in EFA 1.50; search both).
std::vector<std::string> ofi_plugin_candidates(std::string_view arch, const char* nccl_net_plugin_env);

}  // namespace meshbench::analysis
