#pragma once
// A fitted calibration in words, for `meshbench calibrate`'s console output.
#include <string>

#include "common/ops/op.hpp"
#include "mapping/calibration.hpp"

namespace meshbench::analysis {

// Per link class, family and size segment: from which size, α, bandwidth, points, median and
// p90 relative error; then the sharing exponents with their quality, and what it was fitted on.
std::string calibration_text(const mapping::Calibration& calibration);

}  // namespace meshbench::analysis
