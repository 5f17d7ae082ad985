#include "analysis/report/plot_script.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

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
int run_python(const std::string& python, const fs::path& script, const fs::path& json, const fs::path& dir, const fs::path& out,
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

// The --plot folder, created before the script runs (so that a bad path fails before the
// drawing), and removed again, with every folder above it that this created, unless
// keep() is called.
class OutputFolder {
 public:
  explicit OutputFolder(const std::string& dir) : dir_(dir) {
    // The topmost folder that is missing (surely missing: not a path that cannot be looked at).
    std::error_code ec;
    for (fs::path p = dir_; !p.empty() && !fs::exists(p, ec) && !ec && p != p.parent_path(); p = p.parent_path()) created_ = p;
    fs::create_directories(dir_, ec);
    if (ec || !fs::is_directory(dir_)) {
      discard();
      throw InputError("cannot create the --plot folder " + dir + (ec ? ": " + ec.message() : ""));
    }
    if (::access(dir_.c_str(), W_OK | X_OK) != 0) {
      discard();
      throw InputError("cannot write into the --plot folder " + dir + ": permission denied; give a writable folder");
    }
  }
  ~OutputFolder() {
    if (!kept_) discard();
  }
  OutputFolder(const OutputFolder&) = delete;
  OutputFolder& operator=(const OutputFolder&) = delete;
  const fs::path& path() const { return dir_; }
  void keep() { kept_ = true; }

 private:
  void discard() {
    std::error_code ec;
    if (!created_.empty()) fs::remove_all(created_, ec);
    created_.clear();
  }
  fs::path dir_, created_;
  bool kept_ = false;
};

// Copies every drawn file into the folder under a hidden temporary name first and renames them
// only when all copies succeeded, so that a full or read-only disk leaves no partial set.
std::vector<std::string> move_into(const std::vector<fs::path>& drawn, OutputFolder& folder) {
  std::vector<std::pair<fs::path, fs::path>> staged;
  const auto unstage = [&] {
    std::error_code ignored;
    for (const auto& s : staged) fs::remove(s.first, ignored);
  };
  for (const auto& src : drawn) {
    const fs::path dest = folder.path() / src.filename();
    const fs::path tmp = folder.path() / ("." + src.filename().string() + ".tmp");
    std::error_code ec;
    fs::copy_file(src, tmp, fs::copy_options::overwrite_existing, ec);
    if (ec) {
      const std::string why = ec.message();
      fs::remove(tmp, ec);
      unstage();
      throw InputError("cannot write " + dest.string() + " for --plot: " + why + "; give a writable folder");
    }
    staged.emplace_back(tmp, dest);
  }
  std::vector<std::string> written;
  for (std::size_t i = 0; i < staged.size(); ++i) {
    std::error_code ec;
    fs::rename(staged[i].first, staged[i].second, ec);
    if (ec) {
      staged.erase(staged.begin(), staged.begin() + static_cast<std::ptrdiff_t>(i));
      unstage();
      throw InputError("cannot write " + staged.front().second.string() + " for --plot: " + ec.message());
    }
    written.push_back(staged[i].second.string());
  }
  folder.keep();
  return written;
}

}  // namespace

std::string plot_python() {
  const char* env = std::getenv("MESHBENCH_PYTHON");
  return env != nullptr && *env != '\0' ? env : "/usr/bin/python3";
}

std::vector<std::string> run_plot_script(const std::vector<PlotScriptFile>& files, const std::string& input_json, const std::string& dir) {
  const std::string python = plot_python();
  OutputFolder folder(dir);
  Scratch scratch;
  for (const auto& f : files) std::ofstream(scratch / f.name) << f.text;
  std::ofstream(scratch / "input.json") << input_json;
  const fs::path drawn_dir = scratch / "drawn";
  fs::create_directory(drawn_dir);
  const int status =
      run_python(python, scratch / files.front().name, scratch / "input.json", drawn_dir, scratch / "out.txt", scratch / "err.txt");
  const std::string err = last_line(read_all(scratch / "err.txt"));
  if (status == 127) {
    throw InputError("--plot needs " + python +
                     " (python3 with matplotlib): install python3-matplotlib, set MESHBENCH_PYTHON, or drop --plot");
  }
  if (status == 3) {
    throw InputError("--plot needs matplotlib for " + python + ": install python3-matplotlib (Debian) or set MESHBENCH_PYTHON; " + err);
  }
  if (status != 0) throw InputError("the plotting script failed (exit " + std::to_string(status) + "): " + err);
  std::vector<fs::path> drawn;
  std::istringstream out(read_all(scratch / "out.txt"));
  for (std::string line; std::getline(out, line);) {
    if (line.empty()) continue;
    const fs::path p = drawn_dir / fs::path(line).filename();
    if (!fs::is_regular_file(p)) throw InputError("the plotting script named " + line + " but did not write it");
    drawn.push_back(p);
  }
  return move_into(drawn, folder);
}

}  // namespace meshbench::analysis
