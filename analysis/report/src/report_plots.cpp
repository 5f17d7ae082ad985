#include "analysis/report/report_plots.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/report/report_writers.hpp"
#include "common/error.hpp"
#include "common/ops/op.hpp"

namespace meshbench::analysis {

namespace {

namespace fs = std::filesystem;

// A private scratch folder for the script, its input and its output, removed on every path.
class Scratch {
 public:
  Scratch() {
    std::string pattern = (fs::temp_directory_path() / "meshbench-plot-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw InputError("cannot create a temporary folder for --plot under " + fs::temp_directory_path().string());
    path_ = pattern;
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  fs::path operator/(const char* name) const { return path_ / name; }

 private:
  fs::path path_;
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string last_line(const std::string& text) {
  std::string last, line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

// Runs `python script json dir` with stdout and stderr into files; returns the exit status
// (127 when the interpreter could not be started).
int run_python(const std::string& python, const fs::path& script, const fs::path& json, const std::string& dir, const fs::path& out,
               const fs::path& err) {
  const pid_t pid = ::fork();
  if (pid < 0) throw InputError("cannot start " + python + " for --plot (fork failed)");
  if (pid == 0) {
    if (std::freopen(out.c_str(), "w", stdout) == nullptr || std::freopen(err.c_str(), "w", stderr) == nullptr) ::_exit(126);
    ::execl(python.c_str(), python.c_str(), script.c_str(), json.c_str(), dir.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

std::string plot_python() {
  const char* env = std::getenv("MESHBENCH_PYTHON");
  return env != nullptr && *env != '\0' ? env : "/usr/bin/python3";
}

std::vector<std::string> write_plots(const Report& report, const std::string& dir) {
  const std::string python = plot_python();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) throw InputError("cannot create the --plot folder " + dir + (ec ? ": " + ec.message() : ""));
  Scratch scratch;
  {
    std::ofstream(scratch / "plots.py") << plots_script();
    // The script names no op: it orders them as the op table does.
    nlohmann::json input = report_to_json(report);
    for (const auto& row : ops::kOps) input["op_order"].push_back(row.name);
    std::ofstream(scratch / "report.json") << input.dump();
  }
  const int status = run_python(python, scratch / "plots.py", scratch / "report.json", dir, scratch / "out.txt", scratch / "err.txt");
  const std::string err = last_line(read_all(scratch / "err.txt"));
  if (status == 127) {
    throw InputError("--plot needs " + python +
                     " (python3 with matplotlib): install python3-matplotlib, set MESHBENCH_PYTHON, or drop --plot");
  }
  if (status == 3) {
    throw InputError("--plot needs matplotlib for " + python + ": install python3-matplotlib (Debian) or set MESHBENCH_PYTHON; " + err);
  }
  if (status != 0) throw InputError("the plotting script failed (exit " + std::to_string(status) + "): " + err);
  std::vector<std::string> files;
  std::istringstream out(read_all(scratch / "out.txt"));
  for (std::string line; std::getline(out, line);) {
    if (!line.empty()) files.push_back(line);
  }
  return files;
}

}  // namespace meshbench::analysis
