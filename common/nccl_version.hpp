#pragma once
// NCCL release numbers in the one form meshbench compares them: major×10000 + minor×100 + patch
// (22809 for 2.28.9), NCCL_VERSION_CODE's form since NCCL 2.9. Every reader of a release (the
// cost model's --nccl-version and cost files, the doctor, import, the NCCL backend, the report)
// goes through these.
#include <optional>
#include <string>
#include <string_view>

namespace meshbench::nccl {

// "2.28.9", a release tag's "2.28.9-1", NCCL's own "2.28.9+cuda12.9" (anything after '+', '-' or
// a space), also as NCCL prints the line, "NCCL version 2.28.9+cuda12.9" -> 22809. nullopt for
// anything else: "2.28", "v2.28.9", "2.28.9x", a minor or patch above 99.
std::optional<int> parse_version(std::string_view text);

// NCCL_VERSION_CODE, ncclGetVersion's number or nccl-tests' nccl-library=: X*10000+Y*100+Z since
// 2.9, X*1000+Y*100+Z before (2708 is 2.7.8) -> the form above (22809, 20708).
int version_of_code(long code);

// 22809 -> "2.28.9".
std::string version_string(int version);

}  // namespace meshbench::nccl
