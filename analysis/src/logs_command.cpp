#include "analysis/commands.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {
int logs_command(const Args&) { throw InputError("'logs' is not built yet"); }
}  // namespace meshbench::analysis
