#include "mapping/ops.hpp"

#include <array>

namespace meshbench::mapping {

namespace {
constexpr std::array<std::string_view, kAllOps.size()> kOpNames = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "all_to_allv", "send_recv"};

constexpr std::array kTpOps = {Op::all_reduce, Op::all_gather, Op::reduce_scatter};
constexpr std::array kCpOps = {Op::all_gather};
constexpr std::array kDpOps = {Op::all_reduce, Op::reduce_scatter, Op::all_gather};
constexpr std::array kPpOps = {Op::send_recv};
constexpr std::array kEpOps = {Op::all_to_all, Op::all_to_allv};
constexpr std::array kEtpOps = {Op::all_gather, Op::reduce_scatter};
constexpr std::array kEdpOps = {Op::all_reduce};
}  // namespace

std::string_view to_string(Op op) { return kOpNames[static_cast<std::size_t>(op)]; }

std::optional<Op> parse_op(std::string_view name) {
  for (std::size_t i = 0; i < kOpNames.size(); ++i) {
    if (kOpNames[i] == name) return kAllOps[i];
  }
  return std::nullopt;
}

double busbw_factor(Op op, int n) {
  const double dn = n;
  switch (op) {
    case Op::all_reduce: return 2.0 * (dn - 1.0) / dn;
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::all_to_all:
    case Op::all_to_allv: return (dn - 1.0) / dn;
    case Op::send_recv: return 1.0;
  }
  return 1.0;
}

std::span<const Op> typical_ops(Dim dim) {
  switch (dim) {
    case Dim::tp: return kTpOps;
    case Dim::cp: return kCpOps;
    case Dim::dp: return kDpOps;
    case Dim::pp: return kPpOps;
    case Dim::ep: return kEpOps;
    case Dim::etp: return kEtpOps;
    case Dim::edp: return kEdpOps;
  }
  return {};
}

}  // namespace meshbench::mapping
