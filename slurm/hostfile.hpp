#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace meshbench::slurm {

// A SLURM_HOSTFILE for `srun --distribution=arbitrary`: line i names the host of task (rank) i.
// This is how a chosen mapping's placement reaches Slurm (mapping's exporter writes one).
struct Hostfile {
  std::string path;                // as given to the generator, made absolute
  std::vector<std::string> hosts;  // one per task, in rank order
  std::vector<std::string> nodes;  // distinct hosts, in order of first appearance
  int tasks_per_node = 0;          // the same on every node (a mapping is a permutation of slots)
};

// Parses a hostfile's text: one host name per line; blank lines and '#' comments are ignored.
// Throws InputError (naming `path` and the line) for a malformed host name, an empty file or
// nodes with different task counts.
Hostfile parse_hostfile(const std::string& path, std::string_view text);

// Reads and parses the file at `path`; InputError when it cannot be read.
Hostfile read_hostfile(const std::string& path);

}  // namespace meshbench::slurm
