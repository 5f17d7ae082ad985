#pragma once
// The OSU micro-benchmarks' output (docs/import.md): "# OSU MPI Allreduce Latency Test v7.4",
// the optional "# Datatype:" line, the "# Size  Avg Latency(us)" table with or without -f's
// Min/Max/Iterations columns and -c's Validation column, and the bandwidth tests' MB/s.
#include <istream>
#include <string>

#include "analysis/import/imported_log.hpp"

namespace meshbench::analysis {

// InputError "PATH:LINE: what is wrong; the way out" for anything it does not recognise, and
// for a collective log without options.ranks (OSU does not print how many ranks ran).
ImportedLog parse_osu_log(std::istream& in, const std::string& path, const ImportOptions& options = {});

}  // namespace meshbench::analysis
