#pragma once
#include <string>
#include <utility>
#include <vector>

namespace meshbench::results {

using Environment = std::vector<std::pair<std::string, std::string>>;

// The environment variables a run records: an allow-list of prefixes (NCCL_, FI_, OMPI_, UCX_,
// CUDA_, SLURM_, ...), never the whole environment — results files are shared between teams
// and a dump of `env` carries credentials. Names that look like secrets are dropped even under
// an allowed prefix (see looks_like_secret).
bool is_recorded_variable(const std::string& name);

// A name that may hold a credential, matched case-insensitively: SECRET, TOKEN, PASSWORD, PASSWD,
// PASSPHRASE, CREDENTIAL, APIKEY, ACCESSKEY, PRIVATEKEY, COOKIE or JWT anywhere in it, or one of
// the '_'-separated words KEY, KEYS, AUTH, AUTHORIZATION, PASS, PWD, PW. Whole words for the short
// marks keep legitimate settings such as NCCL_IB_PKEY or OMPI_MCA_orte_precondition_transports.
bool looks_like_secret(const std::string& name);

// The recorded subset of this process's environment, sorted by name.
Environment recorded_environment();

// The same filter over an explicit list of NAME=VALUE strings (tests, other ranks' envs).
Environment recorded_environment(const std::vector<std::string>& name_value_pairs);

}  // namespace meshbench::results
