#include "common/atomic_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/unit/scratch_dir.hpp"

namespace meshbench {

namespace {

namespace fs = std::filesystem;

class AtomicFile : public ::testing::Test {
 protected:
  static std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Every name in the folder: a failed or finished write leaves no temporary file behind.
  std::size_t entries() const { return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }
  static unsigned permissions(const fs::path& p) {
    struct stat st {};
    ::stat(p.c_str(), &st);
    return static_cast<unsigned>(st.st_mode) & 07777U;
  }

  test_support::ScratchDir scratch_{"meshbench-atomic"};
  fs::path dir_ = scratch_.path();
};

AtomicWriteError::Step failed_step(const std::string& path, std::string_view text, const AtomicWriteOptions& options) {
  try {
    write_file_atomically(path, text, options);
  } catch (const AtomicWriteError& e) {
    return e.step();
  }
  ADD_FAILURE() << "no AtomicWriteError for " << path;
  return AtomicWriteError::Step::write;
}

}  // namespace

TEST_F(AtomicFile, WritesTheWholeContentAndNothingElse) {
  const auto path = (dir_ / "plan.json").string();
  write_file_atomically(path, "{\"a\": 1}\n");
  EXPECT_EQ(read(path), "{\"a\": 1}\n");
  EXPECT_EQ(entries(), 1U);
}

TEST_F(AtomicFile, ReplacesOnlyWhenAllowed) {
  const auto path = (dir_ / "job.sbatch").string();
  write_file_atomically(path, "old");
  EXPECT_EQ(failed_step(path, "new", {.replace = false, .mode = std::nullopt}), AtomicWriteError::Step::exists);
  EXPECT_EQ(read(path), "old");
  write_file_atomically(path, "new", {.replace = true, .mode = std::nullopt});
  EXPECT_EQ(read(path), "new");
  EXPECT_EQ(entries(), 1U);
}

TEST_F(AtomicFile, WithoutReplaceANewNameIsWritten) {
  const auto path = (dir_ / "env.sh").string();
  write_file_atomically(path, "export A=1\n", {.replace = false, .mode = 0644U});
  EXPECT_EQ(read(path), "export A=1\n");
  EXPECT_EQ(entries(), 1U);
}

TEST_F(AtomicFile, ModeIsExactAndDefaultIsTheUmasks) {
  const mode_t old_mask = ::umask(022);
  const auto script = dir_ / "job.sbatch", plain = dir_ / "plan.json";
  write_file_atomically(script.string(), "#!/bin/bash\n", {.replace = true, .mode = 0755U});
  write_file_atomically(plain.string(), "{}\n");
  ::umask(old_mask);
  EXPECT_EQ(permissions(script), 0755U);
  EXPECT_EQ(permissions(plain), 0644U);
}

TEST_F(AtomicFile, MissingFolderFailsAtCreateAndLeavesNothing) {
  const auto path = (dir_ / "no-such-dir" / "out.json").string();
  try {
    write_file_atomically(path, "x");
    FAIL() << "wrote into a folder that does not exist";
  } catch (const AtomicWriteError& e) {
    EXPECT_EQ(e.step(), AtomicWriteError::Step::create);
    EXPECT_FALSE(e.reason().empty());
    EXPECT_NE(std::string(e.what()).find(e.reason()), std::string::npos);
  }
  EXPECT_EQ(entries(), 0U);
}

TEST_F(AtomicFile, RenameOntoAFolderFailsAndLeavesNoTemporaryFile) {
  fs::create_directories(dir_ / "taken" / "inside");
  EXPECT_EQ(failed_step((dir_ / "taken").string(), "x", {}), AtomicWriteError::Step::rename);
  EXPECT_EQ(entries(), 1U);
  EXPECT_TRUE(fs::is_directory(dir_ / "taken" / "inside"));
}

}  // namespace meshbench
