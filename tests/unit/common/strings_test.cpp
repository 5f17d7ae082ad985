// common/strings.hpp: the pieces a comma list gives.
#include "common/strings.hpp"

#include <gtest/gtest.h>

namespace meshbench {
namespace {

TEST(Strings, SplitNonemptyDropsEmptyPieces) {
  using V = std::vector<std::string>;
  EXPECT_EQ(split_nonempty("a,b,c", ','), (V{"a", "b", "c"}));
  EXPECT_EQ(split_nonempty("a,,b,", ','), (V{"a", "b"}));
  EXPECT_EQ(split_nonempty(",a", ','), (V{"a"}));
  EXPECT_EQ(split_nonempty("", ','), V{});
  EXPECT_EQ(split_nonempty(",,", ','), V{});
  EXPECT_EQ(split_nonempty("per_iteration", ','), (V{"per_iteration"}));
  EXPECT_EQ(split_nonempty("a b;c", ';'), (V{"a b", "c"}));
}

}  // namespace
}  // namespace meshbench
