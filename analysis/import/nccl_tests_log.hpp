#pragma once
// nccl-tests' output (docs/import.md): the text a *_perf binary prints — its header, the
// "#  Rank" device lines, the out-of-place / in-place table with or without the root and
// #wrong columns (older versions: an error column, N/A when unchecked), -I 1's per-iteration
// columns, -S's timestamps, several runs appended in one file, NCCL_DEBUG=INFO lines mixed in —
// or the JSON file its -J option writes.
#include <istream>
#include <string>

#include "analysis/import/imported_log.hpp"

namespace meshbench::analysis {

// InputError "PATH:LINE: what is wrong; the way out" for anything it does not recognise.
ImportedLog parse_nccl_tests_log(std::istream& in, const std::string& path, const ImportOptions& options = {});

// nccl-tests' binary name ("all_reduce_perf", a path to it, or the op's own name) as meshbench's
// op; empty when it names none meshbench measures.
std::string op_of_nccl_tests_program(const std::string& program);

}  // namespace meshbench::analysis
