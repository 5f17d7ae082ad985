#pragma once
#include "common/cli.hpp"

namespace meshbench::slurm {
// meshbench slurm
int slurm_command(const Args& args);
}
