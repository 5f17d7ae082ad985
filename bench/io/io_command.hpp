#pragma once
#include "common/cli.hpp"

namespace meshbench::bench {
// meshbench io: checkpoint write and read-back bandwidth into a folder, under mpirun/srun
int io_command(const Args& args);
}  // namespace meshbench::bench
