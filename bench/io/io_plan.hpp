#pragma once
// `meshbench io`'s planning, with no file or MPI in it: how big each rank's checkpoint shard is
// for a workload and layout (docs/run.md, "meshbench io"), where each rank's shard sits in the one
// shared file, and whether the shards fit the folder's free space and the disk budget.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mapping/layout.hpp"
#include "mapping/workload.hpp"

namespace meshbench::bench::io {

// One rank's share of a training checkpoint, after Megatron-Core's convention: the rank's
// parameters (dense ones split over TP×PP, expert ones over ETP×EP×PP), each as a bf16 weight
// (fp32 for an fp32 model), a gradient in the workload's grad_dtype, and 12 bytes of fp32
// optimizer state (master weight, Adam's m and v) that the distributed optimizer splits over the
// data-parallel group (dense: DP×CP, experts: EDP).
struct Shard {
  double params = 0;  // parameters this rank holds
  std::uint64_t weight_bytes = 0, grad_bytes = 0, optimizer_bytes = 0;
  std::uint64_t total() const { return weight_bytes + grad_bytes + optimizer_bytes; }
};

inline constexpr int kOptimizerBytesPerParam = 12;

// Direct I/O moves whole blocks: shards, offsets and buffers are rounded up to 4 KiB.
inline constexpr std::uint64_t kBlock = 4096;
inline std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

// InputError when the workload does not fit the layout (mapping::check_workload) or the layout is
// invalid for its world size.
Shard checkpoint_shard(const mapping::Workload& workload, const mapping::Layout& layout);

// The shared file's layout: each rank's shard starts at a multiple of `align` bytes (a page, so
// that no two ranks write one page), in rank order.
struct SharedFileLayout {
  std::vector<std::uint64_t> offset;  // per rank
  std::uint64_t file_bytes = 0;       // the end of the last shard
};
SharedFileLayout shared_file_layout(const std::vector<std::uint64_t>& shard_of_rank, std::uint64_t align = 4096);

// The ranks that write into one filesystem (one shared folder, or one node's local folder) and
// what statvfs reports free there.
struct FilesystemShare {
  std::string folder;
  std::vector<int> ranks;
  std::uint64_t free_bytes = 0;
};

// The most bytes that sit on each filesystem at once: one method's files of one repeat (the
// other method's and the next repeat's files come after these are deleted).
struct BudgetPlan {
  std::vector<std::uint64_t> peak_bytes;  // per filesystem share
  std::vector<std::uint64_t> budget;      // per filesystem share: --budget, or the default share of the free space
};

inline constexpr double kDefaultBudgetFraction = 0.8;

// InputError, one line, when any shard is larger than `budget` (given), when a filesystem has
// less free space than its ranks' shards need at once, or when they need more than the budget
// (given, or kDefaultBudgetFraction of the free space). Each shard counts rounded up to whole
// 4 KiB blocks, as the filesystem allocates it and as the shared file's offsets are aligned.
BudgetPlan check_budget(const std::vector<std::uint64_t>& shard_of_rank, const std::vector<FilesystemShare>& filesystems,
                        std::optional<std::uint64_t> budget);

}  // namespace meshbench::bench::io
