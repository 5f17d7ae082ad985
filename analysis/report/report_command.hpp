#pragma once
#include "common/cli.hpp"

namespace meshbench::analysis {
// meshbench report
int report_command(const Args& args);
}
