#pragma once
#include "common/cli.hpp"

namespace meshbench::bench {
// meshbench run
int run_command(const Args& args);
// meshbench calibrate without results files: probe this allocation, fit, write the calibration
int calibrate_probe_command(const Args& args);
// meshbench io: checkpoint write and read-back bandwidth into a folder, under mpirun/srun
int io_command(const Args& args);
}
