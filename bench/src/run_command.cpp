#include "bench/commands.hpp"
#include "common/error.hpp"

namespace meshbench::bench {
int run_command(const Args&) { throw InputError("'run' is not built yet"); }
}
