#pragma once
#include <filesystem>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::analysis {

// The team's environment template: the variables every rank of a job must have, and their values.
struct EnvTemplateEntry {
  std::string name;
  std::string value;
  int line = 0;                  // in the file; 0 for the built-in template
  bool shell_expansion = false;  // value uses $VAR / $(cmd): only its presence can be checked
  bool must_be_unset = false;    // `unset NAME`
};

struct EnvTemplate {
  std::string source;  // the file, or "built-in (seed checklist)"
  bool builtin = false;
  std::vector<EnvTemplateEntry> entries;
  // Names in the file that look like secrets: never compared, never printed with a value.
  std::vector<std::string> ignored_secret_names;
};

// The seed checklist's template: FI_PROVIDER=efa FI_EFA_USE_DEVICE_RDMA=1 NCCL_PROTO=LL128
// NCCL_BUFFSIZE=67108864 NCCL_P2P_NET_CHUNKSIZE=4194304 NCCL_NET_GDR_LEVEL=PHB.
EnvTemplate builtin_env_template();

// An env file as job scripts source it: `KEY=VALUE`, `export KEY=VALUE`, `unset KEY`, comments
// (`# ...`, also after an unquoted value), blank lines, single or double quotes around values.
// Anything else is an InputError naming the file and line.
EnvTemplate parse_env_template(std::istream& in, const std::string& source);
EnvTemplate load_env_template(const std::filesystem::path& path);

// Variables whose values change how NCCL, libfabric/EFA, CUDA or the loader behave, and so must be
// the same on every rank: NCCL_*, FI_*, OFI_NCCL_*, CUDA_* (not CUDA_VISIBLE_DEVICES, which
// differs per rank by design), TORCH_NCCL_*, NVSHMEM_*, RDMAV_*, UCX_*, MESHBENCH_* (not the
// MESHBENCH_TEST_* knobs), LD_LIBRARY_PATH, LD_PRELOAD. Launcher variables (OMPI_*, PMIX_*,
// SLURM_*) differ per rank and node by design and are not compared.
bool is_behaviour_variable(std::string_view name);

// docs/doctor.md, "Environment template": settings that are legacy (no longer needed), or harmful, given the
// versions found. `variable` empty for combinations (FI_EFA_SET_CUDA_SYNC_MEMOPS missing).
struct EnvFinding {
  std::string variable;
  std::string value;
  bool harmful = false;  // a known failure, not only a leftover
  std::string guidance;
};
// Versions are "" where unknown; a rule that needs an unknown version does not fire.
struct EnvLegacyInput {
  const std::vector<std::pair<std::string, std::string>>* env = nullptr;  // one rank's environment
  std::string libfabric, aws_ofi_nccl, efa_installer, nccl;
  int efa_devices = 0;
};
std::vector<EnvFinding> legacy_env_findings(const EnvLegacyInput& input);

}  // namespace meshbench::analysis
