#include "analysis/import/nccl_tests_log.hpp"

#include <array>
#include <filesystem>
#include <iterator>
#include <sstream>

#include "analysis/import/src/log_text.hpp"
#include "analysis/import/src/nccl_tests_text.hpp"

namespace meshbench::analysis {

namespace {

// nccl-tests' binaries and the op each measures; the rest (broadcast, reduce, gather, scatter,
// hypercube, alltoallv with its own traffic file) measure ops meshbench does not.
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kPrograms = {{
    {"all_reduce_perf", "all_reduce"},
    {"all_gather_perf", "all_gather"},
    {"reduce_scatter_perf", "reduce_scatter"},
    {"alltoall_perf", "all_to_all"},
    {"sendrecv_perf", "send_recv"},
}};

}  // namespace

std::string op_of_nccl_tests_program(const std::string& program) {
  std::string name = std::filesystem::path(program).filename().string();
  // nccl-tests built with MPI=1 NAME_SUFFIX=_mpi: all_reduce_perf_mpi.
  if (name.size() > 4 && name.compare(name.size() - 4, 4, "_mpi") == 0) name.resize(name.size() - 4);
  for (const auto& [binary, op] : kPrograms) {
    if (name == binary || name == op) return std::string(op);
  }
  return "";
}

ImportedLog parse_nccl_tests_log(std::istream& in, const std::string& path, const ImportOptions& options) {
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') return detail::parse_nccl_tests_json(text, path, options);
  std::istringstream lines(text);
  return detail::parse_nccl_tests_text(lines, path, options);
}

}  // namespace meshbench::analysis
