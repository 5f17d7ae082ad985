#pragma once
#include "bench/calibration/probe_fit.hpp"
#include "common/cli.hpp"

namespace meshbench::bench {
// meshbench run; `fit` fits what run --calibrate's probe measured (the binary hands it in).
int run_command(const Args& args, const ProbeFit& fit);
}  // namespace meshbench::bench
