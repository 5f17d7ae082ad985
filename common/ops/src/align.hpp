#pragma once
// What the shapes and checks share and the rest of the project does not need.
#include <cstddef>

#include "common/ops/layout.hpp"

namespace meshbench::ops {

// pattern() repeats with this period, so a sum over ranks is one table per op call.
inline constexpr std::size_t kPatternPeriod = 251;

// Per-rank counts of the split ops are whole 16-byte units, as nccl-tests makes them (a count
// that is not takes NCCL's slower unaligned paths); all_reduce and send_recv keep theirs, as in
// nccl-tests.
constexpr std::size_t whole_units(std::size_t elements) { return elements / kAlignElements * kAlignElements; }
constexpr std::size_t padded(std::size_t elements) { return (elements + kAlignElements - 1) / kAlignElements * kAlignElements; }

}  // namespace meshbench::ops
