#include "results/schema.hpp"

namespace meshbench::results {
const char* schema_document() { return "docs/results-schema.md"; }
}  // namespace meshbench::results
