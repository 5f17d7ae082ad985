#pragma once
#include "common/cli.hpp"

namespace meshbench::analysis {
// meshbench import nccl-tests|osu LOG... --out FILE.h5
int import_command(const Args& args);
}
