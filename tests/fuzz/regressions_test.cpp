// Every input that ever broke a fuzz target's contract (tests/fuzz/regressions/<target>/) and
// every seed (tests/fuzz/corpus/<target>/), fed through the same entry function as libFuzzer's
// harness: each must be accepted or refused with a one-line InputError.
#include <gtest/gtest.h>

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
