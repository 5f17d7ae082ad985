#include "analysis/commands.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {
int doctor_command(const Args&) { throw InputError("'doctor' is not built yet"); }
}  // namespace meshbench::analysis
