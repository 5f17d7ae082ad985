#pragma once
#include "common/cli.hpp"

namespace meshbench::analysis {

// meshbench calibrate RUN.h5 [MORE.h5 …] --out cost.json: the fit from what runs measured.
int calibrate_command(const Args& args);

// True when `args` name results files (an argument ending in .h5, or naming an HDF5 file):
// `meshbench calibrate` then fits from them rather than measuring.
bool calibrate_args_name_files(const Args& args);

}  // namespace meshbench::analysis
