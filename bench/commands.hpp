#pragma once
#include "common/cli.hpp"

namespace meshbench::bench {
// meshbench run
int run_command(const Args& args);
}
