#pragma once
#include "common/cli.hpp"

namespace meshbench::analysis {
// meshbench logs
int logs_command(const Args& args);
}
