#pragma once
// `meshbench io`'s own folder under --dir, and the removal of what it wrote there on every way
// out: at the end, on an error, and on SIGINT, SIGTERM or SIGHUP (a launcher's way to stop a job).
#include <string>

namespace meshbench::bench::io {

// A name no other launch picks: meshbench-io-<UTC time>-<host>-<pid>.
std::string unique_folder_name();

// While one lives, SIGINT, SIGTERM and SIGHUP remove this rank's files and the folder (as far as
// it is empty by then) before the process ends with the signal; the paths are set per pass.
// Only unlink and rmdir run in the handler: both are async-signal-safe.
class CleanupOnSignal {
 public:
  explicit CleanupOnSignal(const std::string& folder);
  ~CleanupOnSignal();
  CleanupOnSignal(const CleanupOnSignal&) = delete;
  CleanupOnSignal& operator=(const CleanupOnSignal&) = delete;
  // The files this rank may have created in the current pass ("" for none).
  void set_files(const std::string& own_file, const std::string& shared_file);
};

// unlink, quiet when the file is gone already.
void remove_file(const std::string& path);

}  // namespace meshbench::bench::io
