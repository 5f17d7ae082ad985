#include "common/sizes.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"

namespace meshbench {

TEST(Sizes, BinarySuffixesLikeNcclTests) {
  EXPECT_EQ(parse_bytes("8"), 8U);
  EXPECT_EQ(parse_bytes("1K"), 1024U);
  EXPECT_EQ(parse_bytes("4M"), 4U << 20U);
  EXPECT_EQ(parse_bytes("2g"), 2ULL << 30U);
}

TEST(Sizes, MalformedSizeIsInputError) {
  EXPECT_THROW(parse_bytes("abc"), InputError);
  EXPECT_THROW(parse_bytes("4Q"), InputError);
  EXPECT_THROW(parse_bytes(""), InputError);
  EXPECT_THROW(parse_size_list("8,,4"), InputError);
}

TEST(Sizes, SweepMultipliesByFactorUpToMax) {
  EXPECT_EQ(size_sweep(8, 64, 2), (std::vector<std::uint64_t>{8, 16, 32, 64}));
  EXPECT_EQ(size_sweep(8, 100, 4), (std::vector<std::uint64_t>{8, 32}));
  EXPECT_THROW(size_sweep(64, 8, 2), InputError);
  EXPECT_THROW(size_sweep(8, 64, 1), InputError);
}

TEST(Sizes, FormatsPowersOfTwoExactly) {
  EXPECT_EQ(format_bytes(8), "8 B");
  EXPECT_EQ(format_bytes(1024), "1 KiB");
  EXPECT_EQ(format_bytes(64ULL << 20U), "64 MiB");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
}

}  // namespace meshbench
