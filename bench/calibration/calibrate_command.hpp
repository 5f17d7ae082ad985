#pragma once
#include "bench/calibration/probe_fit.hpp"
#include "common/cli.hpp"

namespace meshbench::bench {
// meshbench calibrate without results files: probe this allocation, fit with `fit`, write the calibration
int calibrate_probe_command(const Args& args, const ProbeFit& fit);
}  // namespace meshbench::bench
