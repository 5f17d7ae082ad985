#pragma once
// Line handling both importers share: refusals that name the line, tokens, numbers, and the
// launcher's own output that a captured log holds besides the benchmark's.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/import/imported_log.hpp"
#include "common/strings.hpp"  // trim

namespace meshbench::analysis::detail {

// InputError "PATH:LINE: what"; `what` names the problem and the way out.
[[noreturn]] void refuse(const std::string& path, int line, const std::string& what);

// The line quoted for a message, cut at 60 characters.
std::string quoted(std::string_view line);

std::vector<std::string_view> tokens(std::string_view line);
bool starts_with(std::string_view s, std::string_view prefix);

// Whole-token numbers: nullopt for anything else ("12abc", "", "nan").
std::optional<double> to_double(std::string_view s);
std::optional<std::uint64_t> to_u64(std::string_view s);
std::optional<std::int64_t> to_i64(std::string_view s);

// Output of the launcher rather than the benchmark: Open MPI's messages framed by lines of
// dashes (`in_block` carries whether the frame is open), its "[host:pid] ..." lines, and
// Slurm's "srun: " / "slurmstepd: " lines.
bool is_launcher_line(std::string_view line, bool& in_block);

// A line pasted as a Markdown quote ("> # nThread ..."), without its quote marks.
std::string_view unquoted(std::string_view line);

// A line that is not the tool's output: refused with `refusal` under --strict, else counted in
// the log (the first few kept for --verbose).
void skip_line(ImportedLog& log, const ImportOptions& options, int line, std::string_view text, const std::string& refusal);

// The benchmark binary a command line names ("$ mpirun -np 16 ./build/all_reduce_perf -b 8"):
// the file name of the first token that ends in `suffix` ("_perf"), or of `suffix` and "_mpi"
// (nccl-tests built with MPI=1 NAME_SUFFIX=_mpi), without the "_mpi"; "" when none does.
std::string program_on_command_line(std::string_view line, std::string_view suffix);

// The environment a command line gives the benchmark it launches, from the tokens before the
// first that names a program ending in `suffix` (as program_on_command_line): `NAME=VALUE` (the
// shell's, or after mpirun's `-x`), MPICH's and Intel MPI's `-genv NAME VALUE` and `-env NAME
// VALUE`, srun's `--export=ALL,NAME=VALUE`; quotes around a value removed. {name, value} in the
// line's order; empty when the line names no such program.
std::vector<std::pair<std::string, std::string>> environment_on_command_line(std::string_view line, std::string_view suffix);

// The ranks a command line launches the benchmark on: the count its launcher is given before the
// first token whose file name starts with `program_prefix` ("osu_"): `-np N`, `-n N`, `--np N`,
// `--n N`, `--ntasks N`, or any of them as `OPTION=N` (mpirun, mpirun_rsh, srun); 0 when it gives
// none before it (the benchmark's own options come after); nullopt when the line names no such program.
std::optional<int> launched_ranks(std::string_view line, std::string_view program_prefix);

}  // namespace meshbench::analysis::detail
