#pragma once
// Scratch folders for tests. ctest runs unit tests side by side, each case in a process of its
// own, and other build trees' tests run beside them: every folder gets a name no other process
// can be given (mkdtemp), and goes when its owner is done with it, so that nothing piles up under
// the temporary folder from run to run.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>

namespace meshbench::test_support {

// A fresh, empty folder under the tests' temporary folder, removed with its contents when the
// object goes.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& tag = "meshbench-test") {
    std::string name = (std::filesystem::path(::testing::TempDir()) / (tag + ".XXXXXX")).string();
    if (::mkdtemp(name.data()) == nullptr) throw std::runtime_error("cannot make a scratch folder " + name + ": " + std::strerror(errno));
    path_ = name;
  }
  ~ScratchDir() {
    if (::getpid() != owner_) return;  // a forked child that exits must not take its parent's files
    std::error_code ignored;           // a folder already gone, or not removable, must not fail the test
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
  pid_t owner_ = ::getpid();
};

// One scratch folder per tag for the whole test process (the same folder for every call with
// that tag); it goes when the process ends.
inline std::filesystem::path temp_dir(const std::string& tag) {
  static std::map<std::string, std::unique_ptr<ScratchDir>> by_tag;
  auto& dir = by_tag[tag];
  if (!dir) dir = std::make_unique<ScratchDir>(tag);
  return dir->path();
}

}  // namespace meshbench::test_support
