#pragma once
// Helpers for the slurm module's tests: scratch directories, files, and running commands.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "slurm/quote.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace meshbench::slurm::testing {

namespace fs = std::filesystem;

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The tests' shared scratch folder, with paths as strings: the commands under test take them as
// argument words.
class ScratchDir : public test_support::ScratchDir {
 public:
  ScratchDir() : test_support::ScratchDir("meshbench-slurm-test") {}
  std::string operator/(const std::string& name) const { return (path() / name).string(); }
};

inline std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// NUL-separated words (what the recording srun stub writes).
inline std::vector<std::string> split_nul(const std::string& text) {
  std::vector<std::string> out;
  std::string word;
  for (char c : text) {
    if (c == '\0') {
      out.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return out;
}

struct Result {
  int status = -1;
  std::string output;  // stdout and stderr together
};

// Runs argv directly (fork + execvp, no shell: the test's own hostile values cannot inject
// either). `env` entries are "NAME=value" to set, "-u" NAME to unset, or "-i" to start empty.
// Captures stdout and stderr together.
inline Result run(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}, const std::string& cwd = "") {
  ScratchDir out;
  const std::string output = out / "output";
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (std::size_t i = 0; i < env.size(); ++i) {
      if (env[i] == "-i") ::clearenv();
      else if (env[i] == "-u" && i + 1 < env.size()) ::unsetenv(env[++i].c_str());
      else ::putenv(const_cast<char*>(env[i].c_str()));
    }
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) ::_exit(126);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int raw = 0;
  ::waitpid(pid, &raw, 0);
  Result r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.output = read_file(output);
  return r;
}

inline Result meshbench(const std::vector<std::string>& args, const std::string& cwd = "") {
  std::vector<std::string> argv = {MESHBENCH_BINARY, "slurm"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, {}, cwd);
}

}  // namespace meshbench::slurm::testing
