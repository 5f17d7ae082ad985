#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace meshbench::mapping {

// A parallel dimension. Dense grid: tp, cp, dp, pp. Expert grid: etp, ep, edp, pp.
enum class Dim : std::uint8_t { tp, cp, dp, pp, ep, etp, edp };
inline constexpr std::array<Dim, 7> kAllDims = {Dim::tp, Dim::cp, Dim::dp, Dim::pp, Dim::ep, Dim::etp, Dim::edp};

std::string_view to_string(Dim dim);
std::optional<Dim> parse_dim(std::string_view name);

inline constexpr const char* kDefaultOrder = "tp-cp-ep-dp-pp";

// The model side's parallel sizes. DP and EDP follow from the world size.
struct Layout {
  int world = 1;
  int tp = 1;
  int cp = 1;
  int pp = 1;
  int ep = 1;
  int etp = 0;                        // expert tensor parallel size; 0 means "same as tp" (Megatron's default)
  std::string order = kDefaultOrder;  // Megatron-Core's order string; the first name varies fastest

  int expert_tp() const { return etp == 0 ? tp : etp; }
  int dp() const { return world / (tp * cp * pp); }
  int edp() const { return world / (expert_tp() * ep * pp); }
  int size(Dim dim) const;
  bool operator==(const Layout&) const = default;
};

// Throws InputError naming the broken rule (sizes divide W; order names every dimension once
// and ends in pp unless PP = 1 or EDP = DP; both grids' PP groups are equal).
void validate(const Layout& layout);

}  // namespace meshbench::mapping
