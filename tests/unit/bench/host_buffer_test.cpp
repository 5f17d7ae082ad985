#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

#include "bench/host_buffer.hpp"

namespace meshbench::bench {
namespace {

TEST(HostBuffer, PageAlignedZeroFilledAndWritable) {
  const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  HostBuffer b(3 * 1024 * 1024 / 4 + 3);  // not a whole number of pages
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % page, 0U);
  EXPECT_EQ(b.size(), 3U * 1024 * 1024 / 4 + 3);
  for (float x : b.span()) ASSERT_EQ(x, 0.0F);
  b.span().back() = 7.0F;
  EXPECT_EQ(b.data()[b.size() - 1], 7.0F);
}

TEST(HostBuffer, EmptyRequestStillGivesOneElement) {
  HostBuffer b(0);
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), 1U);
}

TEST(HostBuffer, MoveTransfersOwnership) {
  HostBuffer a(16);
  a.data()[3] = 5.0F;
  float* where = a.data();
  HostBuffer b(std::move(a));
  EXPECT_EQ(b.data(), where);
  EXPECT_EQ(b.data()[3], 5.0F);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is the point
  EXPECT_EQ(a.size(), 0U);
  HostBuffer c(4);
  c = std::move(b);
  EXPECT_EQ(c.data(), where);
  EXPECT_EQ(c.size(), 16U);
}

}  // namespace
}  // namespace meshbench::bench
