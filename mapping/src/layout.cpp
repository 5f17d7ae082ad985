#include "mapping/layout.hpp"

#include "common/error.hpp"
#include "mapping/rank_groups.hpp"

namespace meshbench::mapping {

namespace {
constexpr std::array<std::string_view, kAllDims.size()> kDimNames = {"tp", "cp", "dp", "pp", "ep", "etp", "edp"};
}

std::string_view to_string(Dim dim) { return kDimNames[static_cast<std::size_t>(dim)]; }

std::optional<Dim> parse_dim(std::string_view name) {
  for (std::size_t i = 0; i < kDimNames.size(); ++i) {
    if (kDimNames[i] == name) return kAllDims[i];
  }
  return std::nullopt;
}

int Layout::size(Dim dim) const {
  switch (dim) {
    case Dim::tp: return tp;
    case Dim::cp: return cp;
    case Dim::dp: return dp();
    case Dim::pp: return pp;
    case Dim::ep: return ep;
    case Dim::etp: return expert_tp();
    case Dim::edp: return edp();
  }
  return 1;
}

// grid_axes runs every RankGenerator check without listing the groups of every dimension.
void validate(const Layout& layout) { (void)grid_axes(layout, Grid::dense); }

}  // namespace meshbench::mapping
