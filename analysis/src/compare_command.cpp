#include "analysis/commands.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {
int compare_command(const Args&) { throw InputError("'compare' is not built yet"); }
}  // namespace meshbench::analysis
