#pragma once
#include "common/cli.hpp"

namespace meshbench::analysis {
// meshbench history
int history_command(const Args& args);
}
