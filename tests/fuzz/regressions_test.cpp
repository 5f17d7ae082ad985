// Every input that ever broke a fuzz target's contract (tests/fuzz/regressions/<target>/) and
// every seed (tests/fuzz/corpus/<target>/), fed through the same entry function as libFuzzer's
// harness: each must be accepted or refused with a one-line InputError.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <typeinfo>

#include "common/error.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {
namespace {

namespace fs = std::filesystem;

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The files under tests/fuzz/<kind>/<target>/, sorted (README.md files describe the folder).
std::vector<fs::path> inputs(const std::string& kind, const std::string& target) {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(MESHBENCH_FUZZ_DIR) / kind / target;
  if (!fs::is_directory(dir)) return files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().filename() != "README.md") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void replay(const std::string& kind) {
  for (const auto& t : targets()) {
    for (const auto& file : inputs(kind, t.name)) {
      SCOPED_TRACE(file.string());
      try {
        check_contract(t.entry, read_bytes(file));
      } catch (const std::exception& e) {
        ADD_FAILURE() << t.name << ": " << typeid(e).name() << " escaped: " << e.what();
      }
    }
  }
}

TEST(FuzzRegressions, EveryInputThatOnceFailedIsRefusedCleanly) { replay("regressions"); }

// A damaged variable-length length once made HDF5 allocate 1.8 GB (vlen-length-allocates-1.8-gb.h5),
// in the reading child and then in this process. The child's address space is capped now, so
// neither gets near that. Sanitizer builds cap allocations otherwise (tests/sanitizers/env.sh)
// and count shadow memory in their RSS, so the figures are only asserted without them.
TEST(FuzzRegressions, NoDamagedResultsFileMakesTheReaderAllocateGigabytes) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "RSS under a sanitizer includes its shadow memory";
#endif
  const auto files = inputs("regressions", "results_h5");
  ASSERT_GE(files.size(), 1U);
  for (const auto& t : targets()) {
    if (std::string_view(t.name) != "results_h5") continue;
    for (const auto& file : files) EXPECT_NO_THROW(check_contract(t.entry, read_bytes(file))) << file;
  }
  rusage self{}, children{};
  ASSERT_EQ(getrusage(RUSAGE_SELF, &self), 0);
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &children), 0);
  // ru_maxrss is in KiB; every other input is read in under 60 MB.
  EXPECT_LT(self.ru_maxrss, 512L << 10) << "this process's peak RSS in KiB";
  EXPECT_LT(children.ru_maxrss, 512L << 10) << "the reading children's peak RSS in KiB";
}

TEST(FuzzRegressions, EverySeedIsHandledCleanly) { replay("corpus"); }

TEST(FuzzRegressions, EveryTargetHasASeedCorpus) {
  for (const auto& t : targets()) EXPECT_FALSE(inputs("corpus", t.name).empty()) << t.name;
}

TEST(FuzzRegressions, ContractRefusesAMultiLineMessage) {
  const Entry multi_line = [](std::string_view) { throw InputError("first line\nsecond line"); };
  EXPECT_THROW(check_contract(multi_line, ""), std::logic_error);
  const Entry one_line = [](std::string_view) { throw InputError("bad input; fix it"); };
  EXPECT_NO_THROW(check_contract(one_line, ""));
  const Entry other = [](std::string_view) { throw std::out_of_range("vector::at"); };
  EXPECT_THROW(check_contract(other, ""), std::out_of_range);
}

}  // namespace
}  // namespace meshbench::fuzz
