// The pattern meshbench io writes and checks, and the rows it makes of the ranks' timings.
#include "bench/io/io_pattern.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "bench/io/io_summary.hpp"

namespace meshbench::bench::io {
namespace {

std::vector<std::byte> pattern(std::size_t bytes, std::uint64_t pass, int rank, std::uint64_t offset) {
  std::vector<std::byte> out(bytes);
  fill_pattern(out, pass, rank, offset);
  return out;
}

TEST(IoPattern, WhatWasWrittenReadsBackRight) {
  const auto data = pattern(4096 + 5, 3, 1, 8192);
  EXPECT_EQ(count_wrong_words(data, 3, 1, 8192), 0);
}

TEST(IoPattern, OneFlippedByteIsOneWrongWord) {
  auto data = pattern(4096, 3, 1, 0);
  data[100] ^= std::byte{0x01};
  EXPECT_EQ(count_wrong_words(data, 3, 1, 0), 1);
  auto tail = pattern(4101, 3, 1, 0);
  tail.back() ^= std::byte{0x80};
  EXPECT_EQ(count_wrong_words(tail, 3, 1, 0), 1);
}

TEST(IoPattern, AnotherRankPassOrOffsetIsWrongEverywhere) {
  const auto data = pattern(8 * 512, 3, 1, 0);
  EXPECT_EQ(count_wrong_words(data, 3, 2, 0), 512);                      // another rank's shard
  EXPECT_EQ(count_wrong_words(data, 4, 1, 0), 512);                      // an earlier pass's stale file
  EXPECT_EQ(count_wrong_words(data, 3, 1, 4096), 512);                   // data from another offset
  EXPECT_EQ(count_wrong_words(std::vector<std::byte>(64), 3, 1, 0), 8);  // a hole reads zeros
}

TEST(IoPattern, WindowsJoinIntoTheWholeShard) {
  const auto whole = pattern(3 * 4096, 9, 0, 0);
  const auto second = pattern(4096, 9, 0, 4096);
  EXPECT_TRUE(std::equal(second.begin(), second.end(), whole.begin() + 4096));
}

TEST(IoSummary, NodesTakeTheirSlowestRankAndTheLaunchItsSlowestNode) {
  const PhaseKey key{"t", "/data", "ext4", "file_per_rank", "read", 1000, 0};
  const std::vector<RankResult> ranks = {{"a", 1'000'000'000, 1.0, 0, "o_direct", 0.0},
                                         {"a", 1'000'000'000, 2.0, 1, "o_direct", 0.5},
                                         {"b", 1'000'000'000, 0.5, 0, "o_direct", 1.0},
                                         {"b", 1'000'000'000, 0.5, 0, "fadvise_dontneed", 1.0}};
  const auto rows = phase_rows(key, ranks);
  ASSERT_EQ(rows.size(), 3U);
  EXPECT_EQ(rows[0].host, "");
  EXPECT_EQ(rows[0].ranks, 4);
  EXPECT_DOUBLE_EQ(rows[0].seconds, 2.0);
  EXPECT_DOUBLE_EQ(rows[0].gbps, 2.0);
  EXPECT_EQ(rows[0].wrong, 1);
  EXPECT_EQ(rows[0].read_mode, "mixed");
  EXPECT_DOUBLE_EQ(rows[0].cached_fraction, 0.625);
  EXPECT_EQ(rows[1].host, "a");
  EXPECT_DOUBLE_EQ(rows[1].gbps, 1.0);
  EXPECT_EQ(rows[1].read_mode, "o_direct");
  EXPECT_DOUBLE_EQ(rows[1].cached_fraction, 0.25);
  EXPECT_EQ(rows[2].host, "b");
  EXPECT_DOUBLE_EQ(rows[2].gbps, 4.0);
  ASSERT_NE(slowest_node(rows), nullptr);
  EXPECT_EQ(slowest_node(rows)->host, "a");
}

TEST(IoSummary, WritesCarryNoReadModeAndAnUnknownCacheStaysUnknown) {
  const PhaseKey write{"t", "/data", "ext4", "shared_file", "write", 1000, 2};
  const auto w = phase_rows(write, {{"a", 1000, 1e-6, 0, "", -1}});
  EXPECT_EQ(w[0].read_mode, "");
  EXPECT_DOUBLE_EQ(w[0].cached_fraction, -1);
  EXPECT_DOUBLE_EQ(w[0].gbps, 1.0);
  const PhaseKey read{"t", "/data", "ext4", "shared_file", "read", 1000, 2};
  EXPECT_DOUBLE_EQ(phase_rows(read, {{"a", 1000, 1.0, 0, "o_direct", -1}, {"a", 1000, 1.0, 0, "o_direct", 1}})[0].cached_fraction, -1);
}

}  // namespace
}  // namespace meshbench::bench::io
