#include "common/ops/op.hpp"

namespace meshbench::ops {

std::optional<Op> parse_op(std::string_view name) {
  for (const auto& row : kOps) {
    if (row.name == name) return row.op;
  }
  return std::nullopt;
}

std::optional<Family> parse_family(std::string_view name) {
  for (std::size_t i = 0; i < kFamilyNames.size(); ++i) {
    if (kFamilyNames[i] == name) return static_cast<Family>(i);
  }
  return std::nullopt;
}

std::string op_names(std::string_view separator) {
  std::string out;
  for (const auto& row : kOps) {
    if (!out.empty()) out += separator;
    out += row.name;
  }
  return out;
}

double busbw_factor(Op op, int n) {
  const double dn = n;
  switch (info(op).bus) {
    case BusFactor::two_shares: return 2.0 * (dn - 1.0) / dn;
    case BusFactor::one_share: return (dn - 1.0) / dn;
    case BusFactor::whole: return 1.0;
  }
  return 1.0;
}

}  // namespace meshbench::ops
