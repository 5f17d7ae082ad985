#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "common/error.hpp"
#include "tests/fuzz/entries.hpp"

namespace meshbench::fuzz {

namespace {

struct ContractBroken : std::logic_error {
  using std::logic_error::logic_error;
};

// The temporary files go when the process ends normally (a crash leaves them for inspection).
std::map<std::string, std::string>& temp_files() {
  static std::map<std::string, std::string> files;
  static const bool registered = [] {
    std::atexit([] {
      std::error_code ignored;
      for (const auto& [name, path] : temp_files()) std::filesystem::remove(path, ignored);
    });
    return true;
  }();
  (void)registered;
  return files;
}

}  // namespace

void check_contract(Entry entry, std::string_view input) {
  try {
    entry(input);
  } catch (const InputError& e) {
    const std::string_view message = e.what();
    if (message.empty() || message.find('\n') != std::string_view::npos) {
      throw ContractBroken("InputError message is not one non-empty line: '" + std::string(message) + "'");
    }
  }
}

std::string input_file(std::string_view input, const std::string& name) {
  auto& files = temp_files();
  auto it = files.find(name);
  if (it == files.end()) {
    const auto path = std::filesystem::temp_directory_path() / ("meshbench-fuzz-" + std::to_string(::getpid()) + "-" + name);
    it = files.emplace(name, path.string()).first;
  }
  std::ofstream out(it->second, std::ios::binary | std::ios::trunc);
  out.write(input.data(), static_cast<std::streamsize>(input.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write the fuzz input file " + it->second);
  return it->second;
}

}  // namespace meshbench::fuzz
