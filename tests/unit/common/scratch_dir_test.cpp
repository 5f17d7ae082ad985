#include "tests/unit/scratch_dir.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

namespace meshbench::test_support {
namespace {

namespace fs = std::filesystem;

// What a forked child's exit status was, or -1 when it did not exit normally.
int wait_for(pid_t child) {
  int raw = 0;
  if (::waitpid(child, &raw, 0) != child) return -1;
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

TEST(ScratchDir, IsAFreshEmptyFolderOfItsOwnUnderTheTestsTemporaryFolder) {
  const ScratchDir a("scratch-test");
  const ScratchDir b("scratch-test");
  EXPECT_TRUE(fs::is_directory(a.path()));
  EXPECT_TRUE(fs::is_empty(a.path()));
  EXPECT_NE(a.path(), b.path()) << "two folders with one tag must not be one folder";
  EXPECT_EQ(fs::canonical(a.path().parent_path()), fs::canonical(::testing::TempDir()));
  EXPECT_EQ(a.path().filename().string().rfind("scratch-test.", 0), 0U) << a.path();
  EXPECT_EQ(a / "x", a.path() / "x");
}

TEST(ScratchDir, GoesWithEverythingInItWhenTheObjectGoes) {
  fs::path kept;
  {
    const ScratchDir dir("scratch-test");
    kept = dir.path();
    fs::create_directories(dir / "a" / "b");
    std::ofstream(dir / "a" / "b" / "file.txt") << "x";
  }
  EXPECT_FALSE(fs::exists(kept)) << kept;
}

TEST(ScratchDir, AForkedChildThatDestroysItsCopyLeavesTheParentsFolder) {
  auto dir = std::make_unique<ScratchDir>("scratch-test");
  const fs::path path = dir->path();
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    dir.reset();
    ::_exit(fs::exists(path) ? 0 : 1);
  }
  EXPECT_EQ(wait_for(child), 0) << "the child saw its parent's folder removed";
  EXPECT_TRUE(fs::is_directory(path));
}

TEST(TempDir, IsOneFolderPerTagForTheProcess) {
  const auto a = temp_dir("scratch-test-a");
  EXPECT_EQ(temp_dir("scratch-test-a"), a);
  EXPECT_NE(temp_dir("scratch-test-b"), a);
  EXPECT_TRUE(fs::is_directory(a));
}

TEST(TempDir, GoesWhenTheProcessEnds) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(pipe_fds[0]);
    const std::string path = temp_dir("scratch-test-exit").string();
    std::ofstream(fs::path(path) / "file.txt") << "x";
    const bool written = ::write(pipe_fds[1], path.data(), path.size()) == static_cast<ssize_t>(path.size());
    ::close(pipe_fds[1]);
    std::exit(written ? 0 : 1);  // runs the static destructors, as a test process's end does
  }
  ::close(pipe_fds[1]);
  std::string path;
  char buffer[256];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) path.append(buffer, static_cast<std::size_t>(n));
  ::close(pipe_fds[0]);
  ASSERT_EQ(wait_for(child), 0);
  ASSERT_FALSE(path.empty());
  EXPECT_FALSE(fs::exists(path)) << path;
}

}  // namespace
}  // namespace meshbench::test_support
