#include <algorithm>
#include <cctype>

#include "analysis/doctor/versions.hpp"
#include "common/nccl_version.hpp"

namespace meshbench::analysis {

std::vector<int> parse_version(std::string_view text) {
  std::vector<int> parts;
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) == 0) ++i;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
    int value = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) != 0) {
      value = value * 10 + (text[i] - '0');
      ++i;
    }
    parts.push_back(value);
    if (i + 1 < text.size() && text[i] == '.' && std::isdigit(static_cast<unsigned char>(text[i + 1])) != 0) {
      ++i;
    } else {
      break;
    }
  }
  return parts;
}

int compare_versions(std::string_view a, std::string_view b) {
  const auto va = parse_version(a);
  const auto vb = parse_version(b);
  for (std::size_t i = 0; i < std::max(va.size(), vb.size()); ++i) {
    const int x = i < va.size() ? va[i] : 0;
    const int y = i < vb.size() ? vb[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

std::string decode_nccl_version(int code) { return nccl::version_string(nccl::version_of_code(code)); }

std::string decode_cuda_version(int code) { return std::to_string(code / 1000) + "." + std::to_string((code % 1000) / 10); }

namespace {

// The version-like token that starts at `pos`: digits, dots, letters, '-', '+', '_'.
std::string token_at(std::string_view text, std::size_t pos) {
  std::size_t end = pos;
  while (end < text.size()) {
    const auto c = static_cast<unsigned char>(text[end]);
    if (std::isalnum(c) == 0 && c != '.' && c != '-' && c != '+' && c != '_') break;
    ++end;
  }
  return std::string(text.substr(pos, end - pos));
}

}  // namespace

std::string parse_ofi_plugin_version(std::string_view binary) {
  constexpr std::string_view kFull = "NET/OFI Initializing aws-ofi-nccl ";
  if (auto pos = binary.find(kFull); pos != std::string_view::npos) {
    auto v = token_at(binary, pos + kFull.size());
    if (!v.empty()) return v;
  }
  // Builds that format the package string separately still carry "aws-ofi-nccl X.Y.Z".
  constexpr std::string_view kPackage = "aws-ofi-nccl ";
  for (auto pos = binary.find(kPackage); pos != std::string_view::npos; pos = binary.find(kPackage, pos + 1)) {
    const std::size_t start = pos + kPackage.size();
    if (start < binary.size() && std::isdigit(static_cast<unsigned char>(binary[start])) != 0) {
      return token_at(binary, start);
    }
  }
  return {};
}

std::string parse_efa_installer_version(std::string_view text) {
  constexpr std::string_view kMark = "EFA installer version:";
  const auto pos = text.find(kMark);
  if (pos == std::string_view::npos) return {};
  std::size_t start = pos + kMark.size();
  while (start < text.size() && text[start] == ' ') ++start;
  return token_at(text, start);
}

std::string parse_nvidia_driver_version(std::string_view text) {
  constexpr std::string_view kMark = "Kernel Module";
  const auto pos = text.find(kMark);
  if (pos == std::string_view::npos) return {};
  std::size_t start = pos + kMark.size();
  while (start < text.size() && (text[start] == ' ' || text[start] == '\t')) ++start;
  // "Kernel Module for Linux 550.x" is not the NVIDIA format; insist on a number.
  if (start >= text.size() || std::isdigit(static_cast<unsigned char>(text[start])) == 0) return {};
  return token_at(text, start);
}

std::string short_mpi_version(std::string_view library_version) {
  std::string_view s = library_version.substr(0, library_version.find_first_of(",\n"));
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())) != 0) s.remove_suffix(1);
  return std::string(s);
}

std::vector<std::string> ofi_plugin_candidates(std::string_view arch, const char* nccl_net_plugin_env) {
  std::vector<std::string> out;
  if (nccl_net_plugin_env != nullptr && std::string_view(nccl_net_plugin_env).find('/') != std::string_view::npos) {
    out.emplace_back(nccl_net_plugin_env);
  }
  const std::string arch_dir = std::string(arch) + "-linux-gnu";
  const std::vector<std::string> dirs = {"/opt/amazon/ofi-nccl/lib", "/opt/amazon/ofi-nccl/lib/" + arch_dir, "/opt/amazon/ofi-nccl/lib64",
                                         "/opt/aws-ofi-nccl/lib"};
  for (const auto& dir : dirs) {
    for (const char* name : {"libnccl-net.so", "libnccl-net-ofi.so"}) out.push_back(dir + "/" + name);
  }
  return out;
}

}  // namespace meshbench::analysis
