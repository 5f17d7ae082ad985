#pragma once
// How every compare writer prints a p-value: three significant digits, or "<1e-4".
#include <string>

#include "analysis/report/text_table.hpp"

namespace meshbench::analysis {

inline std::string p_text(double p) { return p < 1e-4 ? "<1e-4" : sig3(p); }

}  // namespace meshbench::analysis
