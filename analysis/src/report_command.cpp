#include "analysis/commands.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {
int report_command(const Args&) { throw InputError("'report' is not built yet"); }
}  // namespace meshbench::analysis
