#include "mapping/ops.hpp"

#include <array>

namespace meshbench::mapping {

namespace {

constexpr std::array kTpOps = {Op::all_reduce, Op::all_gather, Op::reduce_scatter};
constexpr std::array kCpOps = {Op::all_gather};
constexpr std::array kDpOps = {Op::all_reduce, Op::reduce_scatter, Op::all_gather};
constexpr std::array kPpOps = {Op::send_recv};
constexpr std::array kEpOps = {Op::all_to_all, Op::all_to_allv};
constexpr std::array kEtpOps = {Op::all_gather, Op::reduce_scatter};
constexpr std::array kEdpOps = {Op::all_reduce};
}  // namespace

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
