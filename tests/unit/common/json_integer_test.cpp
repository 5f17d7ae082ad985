#include "common/json_integer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace meshbench {

using nlohmann::json;

TEST(JsonInteger, IntegersInsideTheRangeComeBack) {
  EXPECT_EQ(json_integer<int>(json::parse("8")), 8);
  EXPECT_EQ(json_integer<int>(json::parse("-3")), -3);
  EXPECT_EQ(json_integer<int>(json::parse("2147483647")), std::numeric_limits<int>::max());
  EXPECT_EQ(json_integer<int>(json::parse("-2147483648")), std::numeric_limits<int>::min());
  EXPECT_EQ(json_integer<long long>(json::parse("9223372036854775807")), std::numeric_limits<long long>::max());
  // A document built in memory holds signed and unsigned values; both read the same.
  EXPECT_EQ(json_integer<int>(json(7U)), 7);
  EXPECT_EQ(json_integer<int>(json(-7)), -7);
}

TEST(JsonInteger, ValuesPastTheRangeAreRefusedNotWrapped) {
  // get<int>() reads 4294967304 (2^32 + 8) as 8.
  EXPECT_EQ(json_integer<int>(json::parse("4294967304")), std::nullopt);
  EXPECT_EQ(json_integer<int>(json::parse("2147483648")), std::nullopt);
  EXPECT_EQ(json_integer<int>(json::parse("-2147483649")), std::nullopt);
  // get<long long>() reads 2^64 - 1 as -1.
  EXPECT_EQ(json_integer<long long>(json::parse("18446744073709551615")), std::nullopt);
  EXPECT_EQ(json_integer<std::uint32_t>(json::parse("-1")), std::nullopt);
  EXPECT_EQ(json_integer<std::uint64_t>(json::parse("18446744073709551615")), std::numeric_limits<std::uint64_t>::max());
}

TEST(JsonInteger, NonIntegersAreRefused) {
  EXPECT_EQ(json_integer<int>(json::parse("2.0")), std::nullopt);
  EXPECT_EQ(json_integer<int>(json::parse("1e113")), std::nullopt);
  EXPECT_EQ(json_integer<int>(json::parse("\"8\"")), std::nullopt);
  EXPECT_EQ(json_integer<int>(json::parse("true")), std::nullopt);
  EXPECT_EQ(json_integer<int>(json()), std::nullopt);
}

}  // namespace meshbench
