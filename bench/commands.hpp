#pragma once
#include "common/cli.hpp"

namespace meshbench::bench {
// meshbench run
int run_command(const Args& args);
// meshbench calibrate without results files: probe this allocation, fit, write the calibration
int calibrate_probe_command(const Args& args);
}
