#include "topology/link_class.hpp"

#include <array>

namespace meshbench::topology {

namespace {
constexpr std::array<std::string_view, kLinkClassCount> kNames = {"LOC", "NVL", "NVB", "PIX", "PXB", "PHB", "SYS", "NET"};
}

std::string_view to_string(LinkClass link) { return kNames[static_cast<std::size_t>(link)]; }

std::optional<LinkClass> parse_link_class(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == name) return static_cast<LinkClass>(i);
  }
  return std::nullopt;
}

}  // namespace meshbench::topology
