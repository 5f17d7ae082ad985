#pragma once
#include <string>
#include <string_view>

namespace meshbench::slurm {

// Writes a job file all at once (common/atomic_file.hpp), so a reader never sees half a script,
// with exactly `mode` as its permissions. Without `replace`, an existing `path` is left alone
// and InputError says to pass --force; any other failure is an InputError naming the step.
void write_job_file(const std::string& path, std::string_view content, unsigned mode, bool replace);

}  // namespace meshbench::slurm
