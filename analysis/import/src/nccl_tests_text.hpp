#pragma once
// The two forms of nccl-tests' output, each read on its own (nccl_tests_log.cpp picks one).
#include <istream>
#include <string>

#include "analysis/import/imported_log.hpp"

namespace meshbench::analysis::detail {

ImportedLog parse_nccl_tests_text(std::istream& in, const std::string& path, const ImportOptions& options);
ImportedLog parse_nccl_tests_json(const std::string& text, const std::string& path, const ImportOptions& options);

// nccl-tests' type names as meshbench's dtype names ("float" -> "float32"); "" for none it has.
std::string dtype_of_nccl_type(std::string_view type);
// "NCCL version 2.18.3+cuda12.2" -> {"2.18.3", "12.2"}; nccl-tests' version code 22803 -> "2.28.3".
std::pair<std::string, std::string> nccl_version_of(std::string_view message);
std::string nccl_version_of_code(long code);

}  // namespace meshbench::analysis::detail
