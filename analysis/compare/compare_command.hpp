#pragma once
#include "common/cli.hpp"

namespace meshbench::analysis {
// meshbench compare
int compare_command(const Args& args);
}
