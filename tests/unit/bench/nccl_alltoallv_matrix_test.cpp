// The skewed all-to-allv matrix that the NCCL backend turns into grouped sends and receives.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "bench/op_spec.hpp"
#include "bench/traffic_matrix.hpp"
#include "common/routing_skew.hpp"

namespace meshbench::bench {

namespace {

std::uint64_t row_sum(const std::vector<std::uint64_t>& row) { return std::accumulate(row.begin(), row.end(), std::uint64_t{0}); }

std::uint64_t column_sum(const TrafficMatrix& m, std::size_t j) {
  std::uint64_t s = 0;
  for (const auto& row : m) s += row[j];
  return s;
}

std::size_t hottest_column(const TrafficMatrix& m) {
  std::size_t best = 0;
  for (std::size_t j = 1; j < m.size(); ++j) {
    if (column_sum(m, j) > column_sum(m, best)) best = j;
  }
  return best;
}

}  // namespace

TEST(NcclAlltoallvMatrix, RowsSumToThePerRankTotal) {
  for (int n : {1, 2, 3, 8, 17}) {
    for (double skew : {0.0, 0.5, 1.0, 2.5}) {
      const auto m = alltoallv_matrix(n, 1000003, skew, 7);
      ASSERT_EQ(m.size(), static_cast<std::size_t>(n));
      for (const auto& row : m) {
        ASSERT_EQ(row.size(), static_cast<std::size_t>(n));
        EXPECT_EQ(row_sum(row), 1000003U) << "n=" << n << " skew=" << skew;
      }
    }
  }
}

TEST(NcclAlltoallvMatrix, SkewZeroIsUniform) {
  const auto m = alltoallv_matrix(8, 8000, 0.0, 3);
  for (const auto& row : m) EXPECT_EQ(row, std::vector<std::uint64_t>(8, 1000));
  EXPECT_EQ(max_rank_traffic(m), 8000U);
}

TEST(NcclAlltoallvMatrix, SkewMakesOneHotColumnSharedByAllSenders) {
  const auto m = alltoallv_matrix(8, 1 << 20, 1.0, 11);
  const std::size_t hot = hottest_column(m);
  for (const auto& row : m) EXPECT_EQ(static_cast<std::size_t>(std::max_element(row.begin(), row.end()) - row.begin()), hot);
  // Zipf(1) over 8: the hottest expert gets 1/H(8) ≈ 36.8% of every sender's tokens.
  EXPECT_NEAR(static_cast<double>(m[0][hot]) / (1 << 20), 1.0 / (1 + 1. / 2 + 1. / 3 + 1. / 4 + 1. / 5 + 1. / 6 + 1. / 7 + 1. / 8), 1e-4);
  // The hot receiver's total is the largest traffic: what algbw divides by.
  EXPECT_EQ(max_rank_traffic(m), column_sum(m, hot));
  EXPECT_GT(max_rank_traffic(m), static_cast<std::uint64_t>(1 << 20));
}

TEST(NcclAlltoallvMatrix, HigherSkewIsHotter) {
  const auto mild = alltoallv_matrix(8, 1 << 20, 0.5, 5);
  const auto steep = alltoallv_matrix(8, 1 << 20, 2.0, 5);
  EXPECT_LT(max_rank_traffic(mild), max_rank_traffic(steep));
}

// One meaning of the skew: the hottest rank receives what the planner and explore price,
// routing_imbalance(n, skew) times the mean (common/routing_skew.hpp), to the rounding of counts.
TEST(NcclAlltoallvMatrix, TheHottestRankReceivesTheImbalanceThePlannerPrices) {
  for (int n : {2, 4, 8, 16}) {
    for (double skew : {0.0, 0.3, 1.0, 2.0}) {
      const std::uint64_t per_rank = 1 << 20;
      const auto m = alltoallv_matrix(n, per_rank, skew, 13);
      const double mean = static_cast<double>(per_rank);  // every rank sends per_rank, so receives that on average
      const double hottest = static_cast<double>(column_sum(m, hottest_column(m)));
      // Each of the n rows adds at most n - 1 elements of rounding to the hottest rank.
      const double rounding = static_cast<double>(n * n) / mean;
      EXPECT_NEAR(hottest / mean, routing_imbalance(n, skew), rounding) << "n " << n << " skew " << skew;
    }
  }
}

TEST(NcclAlltoallvMatrix, DeterministicForASeed) {
  EXPECT_EQ(alltoallv_matrix(16, 4096, 1.2, 42), alltoallv_matrix(16, 4096, 1.2, 42));
  bool differs = false;
  for (std::uint64_t seed = 1; seed < 6 && !differs; ++seed)
    differs = alltoallv_matrix(16, 4096, 1.2, 42) != alltoallv_matrix(16, 4096, 1.2, seed + 42);
  EXPECT_TRUE(differs) << "the seed should move the hot experts";
}

TEST(NcclAlltoallvMatrix, LayoutOffsetsMatchTheMatrix) {
  // What the grouped sends and receives use: per-peer counts and displacements from op_layout,
  // every block starting on a 16-byte boundary (4 floats).
  const auto m = alltoallv_matrix(4, 1000, 1.0, 9);
  const auto pad = [](std::size_t c) { return (c + 3) / 4 * 4; };
  for (int r = 0; r < 4; ++r) {
    const auto l = op_layout(Op::all_to_allv, 4000, r, 4, &m);
    const auto ur = static_cast<std::size_t>(r);
    std::size_t at_send = 0, at_recv = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      EXPECT_EQ(l.send_counts[j], m[ur][j]);
      EXPECT_EQ(l.recv_counts[j], m[j][ur]);
      EXPECT_EQ(l.send_displs[j], at_send);
      EXPECT_EQ(l.recv_displs[j], at_recv);
      at_send += pad(m[ur][j]);
      at_recv += pad(m[j][ur]);
    }
    EXPECT_EQ(l.send, at_send);
    EXPECT_EQ(l.recv, at_recv);
    EXPECT_GE(l.send, 1000U);
  }
}

}  // namespace meshbench::bench
