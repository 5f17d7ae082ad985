#include "analysis/commands.hpp"
#include "common/error.hpp"

namespace meshbench::analysis {
int report_command(const Args&) { throw InputError("'report' is not built yet"); }
int compare_command(const Args&) { throw InputError("'compare' is not built yet"); }
int doctor_command(const Args&) { throw InputError("'doctor' is not built yet"); }
int logs_command(const Args&) { throw InputError("'logs' is not built yet"); }
}
