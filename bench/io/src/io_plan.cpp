#include "bench/io/io_plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"
#include "common/sizes.hpp"

namespace meshbench::bench::io {

namespace {

std::uint64_t to_bytes(double v) { return static_cast<std::uint64_t>(std::llround(std::max(v, 0.0))); }

// Free space is rarely a round number: "51.2 GiB" rather than "53687091 KiB".
std::string readable(std::uint64_t bytes) {
  std::string exact = format_bytes(bytes);
  if (bytes < (1ULL << 20U) || exact.find('.') != std::string::npos || exact.ends_with(" MiB") || exact.ends_with(" GiB") ||
      exact.ends_with(" TiB"))
    return exact;
  const bool tera = bytes >= (1ULL << 40U);
  const bool giga = bytes >= (1ULL << 30U);
  const double unit = tera ? 1099511627776.0 : giga ? 1073741824.0 : 1048576.0;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %s", static_cast<double>(bytes) / unit, tera ? "TiB" : giga ? "GiB" : "MiB");
  return buf;
}

}  // namespace

Shard checkpoint_shard(const mapping::Workload& w, const mapping::Layout& l) {
  mapping::validate(l);
  mapping::check_workload(w, l);
  const double t = l.tp, p = l.pp, e = l.ep, te = l.expert_tp();
  const double dense = w.derived_dense_params() / (t * p);
  const double expert = w.moe_layer_count() > 0 ? w.derived_expert_params() / (te * e * p) : 0.0;
  // Megatron keeps bf16 (or fp16) weights for every low-precision run, fp8 included; an fp32
  // model keeps fp32 ones.
  const double weight = w.dtype == "fp32" ? 4.0 : 2.0;
  const double grad = mapping::dtype_bytes(w.grad_dtype);
  // The distributed optimizer gives each rank of the data-parallel group 1/size of the states:
  // the dense parameters' group is DP×CP, the experts' is EDP.
  const double dense_share = w.distributed_optimizer ? 1.0 / (l.dp() * l.cp) : 1.0;
  const double expert_share = w.distributed_optimizer ? 1.0 / l.edp() : 1.0;
  Shard s;
  s.params = dense + expert;
  s.weight_bytes = to_bytes(s.params * weight);
  s.grad_bytes = to_bytes(s.params * grad);
  s.optimizer_bytes = to_bytes(kOptimizerBytesPerParam * (dense * dense_share + expert * expert_share));
  return s;
}

SharedFileLayout shared_file_layout(const std::vector<std::uint64_t>& shard_of_rank, std::uint64_t align) {
  SharedFileLayout out;
  std::uint64_t next = 0;
  for (const auto bytes : shard_of_rank) {
    out.offset.push_back(next);
    out.file_bytes = next + bytes;
    next = round_up(next + bytes, align);
  }
  return out;
}

BudgetPlan check_budget(const std::vector<std::uint64_t>& shard_of_rank, const std::vector<FilesystemShare>& filesystems,
                        std::optional<std::uint64_t> budget) {
  if (shard_of_rank.empty()) throw InputError("no rank to write a shard; launch meshbench io under mpirun or srun");
  const auto largest = std::max_element(shard_of_rank.begin(), shard_of_rank.end());
  if (budget && *budget < round_up(*largest, kBlock)) {
    throw InputError("--budget " + readable(*budget) + " is below one shard (" + readable(*largest) + " on rank " +
                     std::to_string(largest - shard_of_rank.begin()) + "); raise --budget or lower --shard-bytes");
  }
  BudgetPlan plan;
  for (const auto& fs : filesystems) {
    std::uint64_t peak = 0;
    for (const int r : fs.ranks) peak += round_up(shard_of_rank.at(static_cast<std::size_t>(r)), kBlock);
    const std::string who = std::to_string(fs.ranks.size()) + " rank(s)";
    if (peak > fs.free_bytes) {
      throw InputError("io folder '" + fs.folder + "' has " + readable(fs.free_bytes) + " free but the shards of " + who +
                       " writing there need " + readable(peak) + " at once; free space there, choose another --dir or lower --shard-bytes");
    }
    const std::uint64_t allowed = budget ? *budget : to_bytes(kDefaultBudgetFraction * static_cast<double>(fs.free_bytes));
    if (peak > allowed) {
      throw InputError("the shards of " + who + " in '" + fs.folder + "' need " + readable(peak) + " at once but " +
                       (budget ? "--budget is " + readable(allowed)
                               : "the default budget (80% of the " + readable(fs.free_bytes) + " free) is " + readable(allowed)) +
                       "; raise --budget or lower --shard-bytes");
    }
    plan.peak_bytes.push_back(peak);
    plan.budget.push_back(allowed);
  }
  return plan;
}

}  // namespace meshbench::bench::io
