#pragma once
#include <chrono>

namespace meshbench::results {
// Version of the results file layout (docs/results-schema.md). Bump it on any change a reader
// must know about; the reader refuses files of other versions.
inline constexpr int kSchemaVersion = 1;
// A file that holds several layouts (run --plan with a plan file of several layouts): its
// mappings each belong to one of /layouts, and there is no /layout. A reader of version 1 would
// take every mapping for the one /layout's, so such files carry version 2; a file of one layout
// is written as version 1, which every reader reads.
inline constexpr int kSeveralLayoutsSchemaVersion = 2;

// How long a reader waits for another process's lock on a results file (HDF5 locks an open
// file) before giving up, and how long the run's writer waits before it writes without the lock:
// far longer than one point's write or a reader's visit; the writer's far shorter than the
// watchdog's limit plus grace that the other ranks wait for rank 0 meanwhile.
inline constexpr std::chrono::milliseconds kReaderLockPatience{3000};
inline constexpr std::chrono::milliseconds kWriterLockPatience{1000};
}  // namespace meshbench::results
