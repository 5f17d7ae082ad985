#pragma once
#include <string>
#include <string_view>

namespace meshbench::slurm {

// Writes `content` to `path` all at once: into a temporary file beside it, then renamed into
// place, so a reader never sees half a script. Without `replace`, an existing `path` is left
// alone and InputError says to pass --force (the no-clobber step is atomic: link(2)).
void write_file_atomically(const std::string& path, std::string_view content, unsigned mode, bool replace);

}  // namespace meshbench::slurm
