#include "write_file.hpp"

#include "common/atomic_file.hpp"
#include "common/error.hpp"

namespace meshbench::slurm {

void write_job_file(const std::string& path, std::string_view content, unsigned mode, bool replace) {
  try {
    write_file_atomically(path, content, {.replace = replace, .mode = mode});
  } catch (const AtomicWriteError& e) {
    switch (e.step()) {
      case AtomicWriteError::Step::exists: throw InputError(path + " exists; pass --force to replace it");
      case AtomicWriteError::Step::create:
        throw InputError("cannot write " + path + ": " + e.reason() + "; check that its directory exists and is writable");
      case AtomicWriteError::Step::write:
      case AtomicWriteError::Step::rename: break;
    }
    throw InputError("cannot write " + path + " (" + e.what() + ")");
  }
}

}  // namespace meshbench::slurm
