#include "slurm/hostfile.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "common/strings.hpp"

namespace meshbench::slurm {

namespace {

// Host names go into "#SBATCH --nodelist=" and Slurm's hostlist syntax, so only the characters
// of real host names are accepted (no brackets, commas or spaces).
bool valid_host(std::string_view h) {
  if (h.empty() || h.size() > 253 || h.front() == '-' || h.front() == '.') return false;
  return std::all_of(h.begin(), h.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
  });
}

}  // namespace

Hostfile parse_hostfile(const std::string& path, std::string_view text) {
  Hostfile hf;
  hf.path = path;
  std::map<std::string, int> count;
  std::size_t line_no = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    ++line_no;
    std::string_view line = text.substr(start, end - start);
    line = trim(line.substr(0, line.find('#')));
    start = end + 1;
    if (line.empty()) continue;
    if (!valid_host(line)) {
      throw InputError("hostfile " + path + " line " + std::to_string(line_no) + ": '" + std::string(line) +
                       "' is not a host name (one host per line, one line per task)");
    }
    const std::string host(line);
    if (count[host]++ == 0) hf.nodes.push_back(host);
    hf.hosts.push_back(host);
  }
  if (hf.hosts.empty()) throw InputError("hostfile " + path + " names no host; write one host per line, one line per task");
  hf.tasks_per_node = count[hf.nodes.front()];
  for (const auto& node : hf.nodes) {
    if (count[node] != hf.tasks_per_node) {
      throw InputError("hostfile " + path + " gives " + hf.nodes.front() + " " + std::to_string(hf.tasks_per_node) + " task(s) but " +
                       node + " " + std::to_string(count[node]) + "; a placement uses every slot of every node once");
    }
  }
  return hf;
}

Hostfile read_hostfile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read hostfile " + path + "; pass an existing SLURM_HOSTFILE (one host per task)");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_hostfile(std::filesystem::absolute(path).lexically_normal().string(), text.str());
}

}  // namespace meshbench::slurm
