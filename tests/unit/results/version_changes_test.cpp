#include "results/version_changes.hpp"

#include <gtest/gtest.h>

namespace meshbench::results {

TEST(VersionChanges, OneValuePerComponentOrMixed) {
  const VersionsByHost versions = {{"nccl", {{"a", "2.27.7"}, {"b", "2.27.7"}}}, {"aws_ofi_nccl", {{"a", "1.17.0"}, {"b", "1.16.3"}}}};
  const auto common = common_versions(versions);
  ASSERT_EQ(common.size(), 2U);
  EXPECT_EQ(common.at("nccl"), "2.27.7");
  EXPECT_EQ(common.at("aws_ofi_nccl"), "mixed: 1.16.3, 1.17.0");
}

TEST(VersionChanges, ChangedNamesInOrderWithTheCallersAbsentText) {
  const NamedValues before = {{"nccl", "2.27.7"}, {"mpi", "4.1.4"}, {"hwloc", "2.9.0"}};
  const NamedValues after = {{"nccl", "2.28.9"}, {"mpi", "4.1.4"}, {"libfabric", "1.22.0"}};
  const auto changes = value_changes(before, after, "(absent)");
  ASSERT_EQ(changes.size(), 3U);
  EXPECT_EQ(changes[0].name, "hwloc");
  EXPECT_EQ(changes[0].after, "(absent)");
  EXPECT_EQ(changes[1].name, "libfabric");
  EXPECT_EQ(changes[1].before, "(absent)");
  EXPECT_EQ(changes[2].name, "nccl");
  EXPECT_EQ(changes[2].before, "2.27.7");
  EXPECT_EQ(changes[2].after, "2.28.9");
  EXPECT_TRUE(value_changes(before, before, "absent").empty());
}

}  // namespace meshbench::results
