#include "topology/commands.hpp"
#include "common/error.hpp"

namespace meshbench::topology {
int topo_command(const Args&) { throw InputError("'topo' is not built yet"); }
}
