// meshbench io's planning: shard sizes worked out by hand for stated workloads and layouts, the
// shared file's offsets, and the free-space and budget checks.
#include "bench/io/io_plan.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace meshbench::bench::io {
namespace {

// 1.2e9 dense and 6.4e9 expert parameters (8 experts) on 16 ranks: TP2 PP2 EP4 ETP1, so DP4, EDP2.
mapping::Workload moe() {
  mapping::Workload w;
  w.dense_params = 1.2e9;
  w.expert_params = 6.4e9;
  w.experts = 8;
  return w;
}
mapping::Layout moe_layout() {
  mapping::Layout l;
  l.world = 16;
  l.tp = 2;
  l.pp = 2;
  l.ep = 4;
  l.etp = 1;
  return l;
}

TEST(IoShard, MoeWithoutDistributedOptimizerHoldsEveryStateOnEveryRank) {
  // Dense 1.2e9 / (TP2·PP2) = 3e8, experts 6.4e9 / (ETP1·EP4·PP2) = 8e8: 1.1e9 per rank;
  // bf16 weights 2.2e9 B, fp32 gradients 4.4e9 B, 12 B of optimizer state each: 13.2e9 B.
  const Shard s = checkpoint_shard(moe(), moe_layout());
  EXPECT_DOUBLE_EQ(s.params, 1.1e9);
  EXPECT_EQ(s.weight_bytes, 2'200'000'000U);
  EXPECT_EQ(s.grad_bytes, 4'400'000'000U);
  EXPECT_EQ(s.optimizer_bytes, 13'200'000'000U);
  EXPECT_EQ(s.total(), 19'800'000'000U);
}

TEST(IoShard, DistributedOptimizerSplitsTheStatesOverEachDataParallelGroup) {
  // Dense states over DP4 (3e8 / 4), expert states over EDP2 (8e8 / 2): 12 × 4.75e8 = 5.7e9 B.
  auto w = moe();
  w.distributed_optimizer = true;
  const Shard s = checkpoint_shard(w, moe_layout());
  EXPECT_EQ(s.weight_bytes, 2'200'000'000U);
  EXPECT_EQ(s.grad_bytes, 4'400'000'000U);
  EXPECT_EQ(s.optimizer_bytes, 5'700'000'000U);
  EXPECT_EQ(s.total(), 12'300'000'000U);
}

TEST(IoShard, ContextParallelRanksShareTheDenseStatesToo) {
  // TP2 CP2 PP1 EP2 ETP1 on 16 ranks: DP4 and EDP8; the dense states split over DP×CP = 8.
  auto w = moe();
  w.distributed_optimizer = true;
  auto l = moe_layout();
  l.cp = 2;
  l.pp = 1;
  l.ep = 2;
  // Dense 1.2e9 / TP2 = 6e8, experts 6.4e9 / EP2 = 3.2e9.
  const Shard s = checkpoint_shard(w, l);
  EXPECT_DOUBLE_EQ(s.params, 3.8e9);
  EXPECT_EQ(s.optimizer_bytes, static_cast<std::uint64_t>(12 * (6e8 / 8 + 3.2e9 / 8)));
}

TEST(IoShard, DenseModelFromItsSizes) {
  // 2 layers, hidden 1024, ffn 4096, K/V 1024·256: attention 2·1024² + 2·1024·256 = 2,621,440 and
  // a gated MLP 3·1024·4096 = 12,582,912 per layer, embeddings 2·1000·1024 = 2,048,000:
  // 32,456,704 parameters, 16,228,352 per rank on TP2.
  mapping::Workload w;
  w.layers = 2;
  w.hidden = 1024;
  w.ffn_hidden = 4096;
  w.kv_hidden = 256;
  w.vocab = 1000;
  w.experts = 1;
  mapping::Layout l;
  l.world = 2;
  l.tp = 2;
  const Shard s = checkpoint_shard(w, l);
  EXPECT_DOUBLE_EQ(s.params, 16'228'352);
  EXPECT_EQ(s.weight_bytes, 32'456'704U);
  EXPECT_EQ(s.grad_bytes, 64'913'408U);
  EXPECT_EQ(s.optimizer_bytes, 194'740'224U);
}

TEST(IoShard, Fp32ModelKeepsFp32WeightsAndBf16GradientsCountTwoBytes) {
  auto w = moe();
  w.dtype = "fp32";
  w.grad_dtype = "bf16";
  const Shard s = checkpoint_shard(w, moe_layout());
  EXPECT_EQ(s.weight_bytes, 4'400'000'000U);
  EXPECT_EQ(s.grad_bytes, 2'200'000'000U);
}

TEST(IoShard, WorkloadThatDoesNotFitTheLayoutIsBadInput) {
  auto l = moe_layout();
  l.ep = 3;  // 8 experts over EP3, and 16 ranks not divisible either
  EXPECT_THROW(checkpoint_shard(moe(), l), InputError);
}

TEST(IoSharedFile, EachRankStartsOnAPageOfItsOwn) {
  const auto layout = shared_file_layout({5000, 4096, 1});
  EXPECT_EQ(layout.offset, (std::vector<std::uint64_t>{0, 8192, 12288}));
  EXPECT_EQ(layout.file_bytes, 12289U);
}

FilesystemShare share(std::vector<int> ranks, std::uint64_t free_bytes) { return {"/data", std::move(ranks), free_bytes}; }

std::string message_of(const std::vector<std::uint64_t>& shards, const std::vector<FilesystemShare>& fs,
                       std::optional<std::uint64_t> budget) {
  try {
    (void)check_budget(shards, fs, budget);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(IoBudget, PeakIsEveryRankShardInWholeBlocks) {
  const auto plan = check_budget({1, 4096, 4097}, {share({0, 1, 2}, 1 << 20)}, std::nullopt);
  ASSERT_EQ(plan.peak_bytes.size(), 1U);
  EXPECT_EQ(plan.peak_bytes[0], 4096U + 4096U + 8192U);
  EXPECT_EQ(plan.budget[0], 838861U);  // 80% of 1 MiB, rounded
}

TEST(IoBudget, BudgetBelowOneShardIsRefusedFirst) {
  const std::string m = message_of({64 << 20, 64 << 20}, {share({0, 1}, 1)}, 1 << 20);
  EXPECT_NE(m.find("below one shard"), std::string::npos) << m;
  EXPECT_NE(m.find("64 MiB"), std::string::npos) << m;
}

TEST(IoBudget, TooLittleFreeSpaceNamesTheFolder) {
  const std::string m = message_of({1 << 20, 1 << 20}, {share({0, 1}, (1 << 20) + 4096)}, std::uint64_t{1} << 40U);
  EXPECT_NE(m.find("'/data' has"), std::string::npos) << m;
  EXPECT_NE(m.find("2 MiB"), std::string::npos) << m;
}

TEST(IoBudget, DefaultBudgetIsEightyPercentOfTheFreeSpace) {
  // 2 MiB of shards, 2.4 MiB free: fits the disk but not 80% of it (1.92 MiB).
  const std::uint64_t free_bytes = 2516582;
  const std::string m = message_of({1 << 20, 1 << 20}, {share({0, 1}, free_bytes)}, std::nullopt);
  EXPECT_NE(m.find("default budget"), std::string::npos) << m;
  EXPECT_EQ(message_of({1 << 20, 1 << 20}, {share({0, 1}, free_bytes)}, 2 << 20), "");
}

TEST(IoBudget, GivenBudgetBelowThePeakIsRefused) {
  const std::string m = message_of({1 << 20, 1 << 20}, {share({0, 1}, 1 << 30)}, (1 << 20) + (1 << 19));
  EXPECT_NE(m.find("--budget is 1.5 MiB"), std::string::npos) << m;
}

TEST(IoBudget, NodeLocalFoldersAreCheckedEachOnItsOwn) {
  // Two nodes with a local folder each: 2 MiB per node fits 3 MiB free there, though 4 MiB would not.
  const std::vector<std::uint64_t> shards(4, 1 << 20);
  EXPECT_EQ(message_of(shards, {share({0, 1}, 3 << 20), share({2, 3}, 3 << 20)}, 3 << 20), "");
  EXPECT_NE(message_of(shards, {share({0, 1}, 3 << 20), share({2, 3}, 1 << 20)}, 3 << 20), "");
}

}  // namespace
}  // namespace meshbench::bench::io
