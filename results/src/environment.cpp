#include "results/environment.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>

#include <unistd.h>  // environ

namespace meshbench::results {

namespace {

// What the allow-list keeps: the variables that change how NCCL, libfabric/EFA, MPI, CUDA and
// Slurm behave, and the ones that say where a run happened.
constexpr std::array<std::string_view, 17> kPrefixes = {"NCCL_",      "FI_",         "OFI_NCCL_", "OMPI_",  "OPAL_",  "PMIX_",
                                                        "UCX_",       "CUDA_",       "NVIDIA_",   "SLURM_", "HWLOC_", "RDMAV_",
                                                        "MESHBENCH_", "TORCH_NCCL_", "NVSHMEM_",  "MV2_",   "I_MPI_"};
constexpr std::array<std::string_view, 4> kExact = {"LD_LIBRARY_PATH", "LD_PRELOAD", "HOSTNAME", "CUDA_VISIBLE_DEVICES"};
// Marks of a secret, checked case-insensitively even under an allowed prefix: long marks anywhere
// in the name, short ones only as a whole '_'-separated word (KEY would otherwise drop NCCL_IB_PKEY).
constexpr std::array<std::string_view, 11> kSecretParts = {"SECRET", "TOKEN",     "PASSWORD",   "PASSWD", "PASSPHRASE", "CREDENTIAL",
                                                           "APIKEY", "ACCESSKEY", "PRIVATEKEY", "COOKIE", "JWT"};
constexpr std::array<std::string_view, 7> kSecretWords = {"KEY", "KEYS", "AUTH", "AUTHORIZATION", "PASS", "PWD", "PW"};

std::string upper(std::string_view s) {
  std::string u(s);
  std::transform(u.begin(), u.end(), u.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return u;
}

}  // namespace

bool looks_like_secret(const std::string& name) {
  const std::string u = upper(name);
  for (auto part : kSecretParts) {
    if (u.find(part) != std::string::npos) return true;
  }
  std::size_t start = 0;
  while (start <= u.size()) {
    const std::size_t end = std::min(u.find('_', start), u.size());
    const std::string_view word(u.data() + start, end - start);
    if (std::find(kSecretWords.begin(), kSecretWords.end(), word) != kSecretWords.end()) return true;
    start = end + 1;
  }
  return false;
}

bool is_recorded_variable(const std::string& name) {
  if (looks_like_secret(name)) return false;
  if (std::find(kExact.begin(), kExact.end(), name) != kExact.end()) return true;
  return std::any_of(kPrefixes.begin(), kPrefixes.end(), [&](std::string_view p) { return name.rfind(p, 0) == 0; });
}

Environment recorded_environment(const std::vector<std::string>& pairs) {
  Environment env;
  for (const auto& nv : pairs) {
    const auto eq = nv.find('=');
    if (eq == std::string::npos) continue;
    std::string name = nv.substr(0, eq);
    if (is_recorded_variable(name)) env.emplace_back(std::move(name), nv.substr(eq + 1));
  }
  std::sort(env.begin(), env.end());
  return env;
}

Environment recorded_environment() {
  std::vector<std::string> pairs;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) pairs.emplace_back(*e);
  return recorded_environment(pairs);
}

}  // namespace meshbench::results
