#include <hwloc.h>
#include <mpi.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "analysis/doctor/src/doctor_dynlib.hpp"
#include "analysis/doctor/versions.hpp"
#include "common/strings.hpp"

namespace meshbench::analysis {

namespace {

using detail::DynLib;

// Every vendor entry point used here has the shape `int f(int*)` (CUresult, cudaError_t and
// ncclResult_t are all int-sized enums whose success value is 0).
using IntGetter = int (*)(int*);

VersionInfo read_int_getter(std::initializer_list<const char*> libs, const char* fn, std::string (*decode)(int),
                            const std::string& absent_reason) {
  DynLib lib(libs);
  if (!lib.loaded()) return {"", "not found (" + lib.tried() + "): " + absent_reason};
  auto get = lib.symbol<IntGetter>(fn);
  if (get == nullptr) return {"", std::string(fn) + " missing in " + lib.tried()};
  int code = 0;
  if (get(&code) != 0 || code <= 0) return {"", std::string(fn) + " failed"};
  return {decode(code), DynLib::path_of(reinterpret_cast<const void*>(get))};
}

VersionInfo read_libfabric() {
  DynLib lib({"libfabric.so.1", "libfabric.so"});
  if (!lib.loaded()) return {"", "libfabric.so.1 not found: no libfabric on the library path"};
  using VersionFn = unsigned (*)();
  auto fn = lib.symbol<VersionFn>("fi_version");
  if (fn == nullptr) return {"", "fi_version missing in libfabric"};
  const unsigned v = fn();  // FI_VERSION(major, minor): no patch level at runtime
  return {std::to_string(v >> 16U) + "." + std::to_string(v & 0xFFFFU), DynLib::path_of(reinterpret_cast<const void*>(fn))};
}

VersionInfo read_mpi() {
  // Allowed before MPI_Init (MPI-3), so the single-node doctor records it too.
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  if (MPI_Get_library_version(text, &len) != MPI_SUCCESS) return {"", "MPI_Get_library_version failed"};
  const std::string full(text, static_cast<std::size_t>(len));
  std::string first_line = full.substr(0, full.find('\n'));
  while (!first_line.empty() && first_line.back() == ' ') first_line.pop_back();
  return {short_mpi_version(full), first_line};
}

VersionInfo read_hwloc() {
  const unsigned api = hwloc_get_api_version();
  const std::string path = DynLib::path_of(reinterpret_cast<const void*>(&hwloc_get_api_version));
  std::error_code ec;
  const std::string real = path.empty() ? "" : std::filesystem::canonical(path, ec).string();
  if (api == HWLOC_API_VERSION) return {HWLOC_VERSION, real};
  // The runtime library is not the one meshbench was built with; only its API level is known.
  return {"api " + std::to_string(api >> 16U) + "." + std::to_string((api >> 8U) & 0xFFU) + "." + std::to_string(api & 0xFFU),
          real + " (meshbench built with hwloc " HWLOC_VERSION ")"};
}

std::string read_file(const std::string& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string data(limit, '\0');
  in.read(data.data(), static_cast<std::streamsize>(limit));
  data.resize(static_cast<std::size_t>(in.gcount()));
  return data;
}

VersionInfo read_efa_installer() {
  const std::string path = "/opt/amazon/efa_installed_packages";
  const std::string text = read_file(path, 1U << 16U);
  if (text.empty()) return {"", path + " missing: the EFA installer was not run on this node"};
  const std::string v = parse_efa_installer_version(text);
  if (v.empty()) return {"", path + " has no 'EFA installer version:' line"};
  return {v, path};
}

VersionInfo read_ofi_plugin() {
  utsname u{};
  uname(&u);
  std::vector<std::string> dirs;
  for (const auto& path : ofi_plugin_candidates(u.machine, std::getenv("NCCL_NET_PLUGIN"))) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
      const std::string dir = std::filesystem::path(path).parent_path().string();
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
      continue;
    }
    const std::string v = parse_ofi_plugin_version(read_file(path, 64U << 20U));
    if (!v.empty()) return {v, path};
    return {"", path + " has no 'NET/OFI Initializing aws-ofi-nccl' version string"};
  }
  return {"", "no aws-ofi-nccl plugin (libnccl-net.so, libnccl-net-ofi.so) in " + join(dirs, ", ")};
}

VersionInfo read_nvidia_driver() {
  const std::string path = "/proc/driver/nvidia/version";
  const std::string text = read_file(path, 4096);
  if (text.empty()) return {"", path + " missing: the NVIDIA kernel module is not loaded"};
  const std::string v = parse_nvidia_driver_version(text);
  return v.empty() ? VersionInfo{"", path + " has no kernel module version"} : VersionInfo{v, path};
}

}  // namespace

VersionMap read_process_versions() {
  VersionMap m;
  m["nccl"] = read_int_getter({"libnccl.so.2", "libnccl.so"}, "ncclGetVersion", decode_nccl_version, "NCCL is not on the library path");
  m["cuda_driver"] = read_int_getter({"libcuda.so.1"}, "cuDriverGetVersion", decode_cuda_version, "no NVIDIA driver on this node");
  m["cuda_runtime"] = read_int_getter({"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"}, "cudaRuntimeGetVersion",
                                      decode_cuda_version, "the CUDA runtime is not on the library path");
  m["libfabric"] = read_libfabric();
  m["mpi"] = read_mpi();
  m["hwloc"] = read_hwloc();
  return m;
}

VersionMap read_node_versions() {
  VersionMap m;
  utsname u{};
  m["kernel"] = uname(&u) == 0 ? VersionInfo{u.release, "uname"} : VersionInfo{"", "uname failed"};
  m["efa_installer"] = read_efa_installer();
  m["aws_ofi_nccl"] = read_ofi_plugin();
  m["nvidia_driver"] = read_nvidia_driver();
  return m;
}

}  // namespace meshbench::analysis
