#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

namespace meshbench::topology {

// How two slots are connected, with NCCL's path names (closest first). Stored by name,
// never by NCCL's numeric codes, which changed between NCCL versions.
enum class LinkClass : std::uint8_t {
  LOC,  // the same slot
  NVL,  // NVLink (directly or through NVSwitch)
  NVB,  // NVLink through another GPU
  PIX,  // at most one PCIe switch
  PXB,  // several PCIe switches, not the host bridge
  PHB,  // through the CPU's PCIe host bridge
  SYS,  // across CPU sockets / NUMA nodes
  NET,  // another node
};

inline constexpr int kLinkClassCount = 8;

std::string_view to_string(LinkClass link);
std::optional<LinkClass> parse_link_class(std::string_view name);

}  // namespace meshbench::topology
