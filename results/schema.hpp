#pragma once

namespace meshbench::results {
// Version of the results file layout (docs/results-schema.md). Bump it on any change a reader
// must know about; the reader refuses files of other versions.
inline constexpr int kSchemaVersion = 1;
}  // namespace meshbench::results
