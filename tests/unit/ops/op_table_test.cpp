// The op table itself: names, their parsing, the bus factors, and that every row is complete.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "common/ops/op.hpp"

namespace meshbench::ops {
namespace {

// nccl-tests' factors, written out per op: a new op must say its own here (the switch has no
// default, so the build fails until it does).
double expected_busbw_factor(Op op, int n) {
  const double dn = n;
  // One line per op on purpose, equal factors included.
  // NOLINTBEGIN(bugprone-branch-clone)
  switch (op) {
    case Op::all_reduce: return 2.0 * (dn - 1.0) / dn;
    case Op::all_gather: return (dn - 1.0) / dn;
    case Op::reduce_scatter: return (dn - 1.0) / dn;
    case Op::all_to_all: return (dn - 1.0) / dn;
    case Op::all_to_allv: return (dn - 1.0) / dn;
    case Op::send_recv: return 1.0;
  }
  // NOLINTEND(bugprone-branch-clone)
  return -1.0;
}

TEST(OpTable, RowsFollowTheEnumAndKAllOps) {
  ASSERT_EQ(kAllOps.size(), kOps.size());
  for (std::size_t i = 0; i < kOps.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kOps[i].op), i) << kOps[i].name;
    EXPECT_EQ(kAllOps[i], kOps[i].op) << kOps[i].name;
    EXPECT_EQ(&info(kOps[i].op), &kOps[i]) << kOps[i].name;
  }
}

TEST(OpTable, EveryRowHasALayoutAFillAndACheck) {
  for (const auto& row : kOps) {
    EXPECT_NE(row.shape, nullptr) << row.name;
    EXPECT_NE(row.fill, nullptr) << row.name;
    EXPECT_NE(row.check, nullptr) << row.name;
    EXPECT_LT(static_cast<std::size_t>(row.family), kFamilyCount) << row.name;
  }
}

TEST(OpTable, NamesAreUniqueAndFitTheCommandLine) {
  std::set<std::string_view> seen;
  for (const auto& row : kOps) {
    EXPECT_TRUE(seen.insert(row.name).second) << "duplicate name " << row.name;
    // --ops splits on commas; the results file and the CLI spell names the same way.
    ASSERT_FALSE(row.name.empty());
    for (char c : row.name) EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << row.name;
  }
}

TEST(OpTable, ParseAndToStringRoundTrip) {
  for (Op op : kAllOps) {
    const auto parsed = parse_op(to_string(op));
    ASSERT_TRUE(parsed.has_value()) << to_string(op);
    EXPECT_EQ(*parsed, op);
  }
  EXPECT_FALSE(parse_op("all_sum").has_value());
  EXPECT_FALSE(parse_op("").has_value());
  EXPECT_FALSE(parse_op("All_Reduce").has_value());  // names are exact, as the results file stores them
  EXPECT_FALSE(parse_op("all_reduce ").has_value());
}

TEST(OpTable, OpNamesListsEveryOpInTableOrder) {
  std::string expected;
  for (const auto& row : kOps) expected += (expected.empty() ? "" : ", ") + std::string(row.name);
  EXPECT_EQ(op_names(", "), expected);
  EXPECT_EQ(op_names(","), "all_reduce,all_gather,reduce_scatter,all_to_all,all_to_allv,send_recv");
}

TEST(OpTable, BusbwFactorPerOp) {
  for (Op op : kAllOps) {
    for (int n : {1, 2, 3, 4, 8, 64}) EXPECT_DOUBLE_EQ(busbw_factor(op, n), expected_busbw_factor(op, n)) << to_string(op) << " n=" << n;
  }
  EXPECT_DOUBLE_EQ(busbw_factor(Op::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::send_recv, 8), 1.0);
  EXPECT_DOUBLE_EQ(busbw_factor(Op::all_reduce, 1), 0.0);  // one rank moves nothing
}

TEST(OpTable, OnlyAllToAllvReadsATrafficMatrix) {
  for (const auto& row : kOps) EXPECT_EQ(row.traffic_matrix, row.op == Op::all_to_allv) << row.name;
}

}  // namespace
}  // namespace meshbench::ops
