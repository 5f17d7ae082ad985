#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "common/ops/op.hpp"

namespace meshbench::ops {

// Element type of every measured buffer: float32, whose sums of the check pattern stay exact.
inline constexpr std::size_t kElementBytes = sizeof(float);
inline constexpr const char* kDtypeName = "float32";
// Buffer blocks start, and split ops' per-rank counts are whole units, on 16-byte boundaries.
inline constexpr std::size_t kAlignBytes = 16;
inline constexpr std::size_t kAlignElements = kAlignBytes / kElementBytes;

// One rank's buffers for one op at one size, in elements, following nccl-tests' size
// convention (docs/run.md). Every backend uses the same layout, so the fill and check below
// serve all of them.
struct OpLayout {
  Op op = Op::all_reduce;
  int rank = 0, n = 1;
  std::size_t count = 0;  // all_reduce: elements; split ops: elements per peer/rank (whole 16-byte units); send_recv: per message
  std::size_t send = 0, recv = 0;
  std::vector<std::size_t> send_counts, send_displs, recv_counts, recv_displs;  // all_to_allv; displacements 16-byte aligned
  std::vector<std::size_t> sender_displs;  // all_to_allv: where each sender's block for this rank starts in its send buffer
  std::vector<int> peers;                  // send_recv: neighbouring stages (group-local ranks)
  std::uint64_t bytes = 0;                 // the size column: per-rank buffer bytes as nccl-tests prints them
  std::uint64_t algbw_bytes = 0;           // what algbw divides by the time
};

// `matrix` is the group's traffic matrix, for an op whose table row says it uses one.
OpLayout op_layout(Op op, std::uint64_t bytes, int rank, int n, const TrafficMatrix* matrix = nullptr);

// Device bytes one point's buffers take on the busiest rank of a group of n (send plus
// receive buffer): the all_to_allv receiver of the hottest expert, a middle send_recv stage.
std::uint64_t device_bytes_needed(Op op, std::uint64_t bytes, int n, const TrafficMatrix* matrix = nullptr);

// The check pattern: small integers, so sums over up to 66,000 ranks are exact in float32.
float pattern(int src_rank, std::size_t index);

void fill_send(const OpLayout& layout, std::span<float> send);
// Wrong elements in this rank's output (nccl-tests' #wrong counts elements, summed over ranks).
std::int64_t count_wrong(const OpLayout& layout, std::span<const float> recv);

}  // namespace meshbench::ops
