#pragma once
// Line handling both importers share: refusals that name the line, tokens, numbers, and the
// launcher's own output that a captured log holds besides the benchmark's.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace meshbench::analysis::detail
