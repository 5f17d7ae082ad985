#pragma once
// Output files appear whole or not at all: the content goes to a temporary file beside the
// target (same directory, so same filesystem), is flushed to disk, and is renamed into place.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace meshbench {

struct AtomicWriteOptions {
  // false: refuse a file that exists, even one that appears while writing (the last step is
  // link(2), which never replaces a name).
  bool replace = true;
  // The file's permissions; unset: what a plain open gives (0666 less the umask).
  std::optional<unsigned> mode;
};

// Which step failed, so that each command can word the error in its own terms.
class AtomicWriteError : public std::runtime_error {
 public:
  enum class Step {
    exists,  // the target exists and `replace` is false
    create,  // the temporary file could not be made (directory missing or not writable)
    write,   // writing, chmod, fsync or close of the temporary file
    rename,  // moving it into place (rename, or link without `replace`)
  };
  // what(): "<call>: <system's reason>", e.g. "fsync: No space left on device".
  AtomicWriteError(Step step, const std::string& call, std::string reason, std::string temp);
  Step step() const { return step_; }
  const std::string& reason() const { return reason_; }  // the system's text alone
  const std::string& temp() const { return temp_; }      // the temporary file's name

 private:
  Step step_;
  std::string reason_;
  std::string temp_;
};

// Throws AtomicWriteError; on any failure the temporary file is gone and the target untouched.
void write_file_atomically(const std::string& path, std::string_view content, const AtomicWriteOptions& options = {});

}  // namespace meshbench
