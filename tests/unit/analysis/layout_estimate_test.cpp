// The explorer's estimate as report reads it from a results file of several layouts: its
// scalars as text (integers as integers) and its memory for the HTML page's bars.
#include <gtest/gtest.h>

#include "analysis/report/layout_ranking.hpp"

namespace meshbench::analysis {
namespace {

TEST(LayoutEstimate, ScalarsAsTextIntegersWithoutDecimals) {
  const std::string text = estimate_text(R"({"explore_rank": 2, "step_ms": 15921.67, "memory": {"max_gib": 0.8373}, "stages": [1, 2]})");
  EXPECT_NE(text.find("explore_rank 2,"), std::string::npos) << text;
  EXPECT_EQ(text.find("explore_rank 2.00"), std::string::npos) << text;
  EXPECT_NE(text.find("memory.max_gib 0.837"), std::string::npos) << text;
  EXPECT_EQ(text.find("stages"), std::string::npos) << text;  // lists only in JSON
  EXPECT_EQ(estimate_text(""), "");
}

TEST(LayoutEstimate, MemoryOnlyWhenBothFiguresAreThere) {
  const auto m = estimated_memory(R"({"memory_max_gib": 62.5, "memory_limit_gib": 79.6})");
  ASSERT_TRUE(m);
  EXPECT_DOUBLE_EQ(m->need_gib, 62.5);
  EXPECT_DOUBLE_EQ(m->limit_gib, 79.6);
  EXPECT_FALSE(estimated_memory(R"({"memory_max_gib": 62.5})"));
  EXPECT_FALSE(estimated_memory(R"({"memory_max_gib": 62.5, "memory_limit_gib": 0})"));
  EXPECT_FALSE(estimated_memory(R"({"memory_max_gib": "lots", "memory_limit_gib": 80})"));
  EXPECT_FALSE(estimated_memory("not json"));
  EXPECT_FALSE(estimated_memory(""));
}

}  // namespace
}  // namespace meshbench::analysis
