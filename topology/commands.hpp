#pragma once
#include "common/cli.hpp"

namespace meshbench::topology {
// meshbench topo
int topo_command(const Args& args);
}
